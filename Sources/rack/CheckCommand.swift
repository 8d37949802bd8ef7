import ArgumentParser
import Foundation
import RackEngine
import RackFiles

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate an automation file; every problem is reported with its line number.",
        discussion: "Exit 0 when the file is valid (warnings allowed), 65 when it has errors (or, with --strict, warnings), 66 when it cannot be read.")

    @Argument(help: "Automation file: one event a line, TIME ADDRESS ARGS..., # comments.")
    var file: String
    @Option(help: "Length of the input in seconds, to flag events and ramps past its end.", transform: decimalArgument)
    var length: Double?
    @Flag(help: "Treat warnings (interrupted ramps, clamped values, events past the end) as errors.")
    var strict = false

    func validate() throws {
        if let length { guard length.isFinite && length >= 0 else { throw ValidationError("--length must be a finite number of seconds ≥ 0") } }
    }

    func run() throws {
        try runReportingErrors {
            let presets = PresetStore.standard()
            let automation = try readAutomation(file, presets: presets, length: length).automation
            let crowded = LivePacing.crowdedLines(automation.events)
            if let failure = reportProblems(of: automation, in: file, warningsAreErrors: strict) { throw failure }
            let severity = strict ? "error" : "warning"
            for c in crowded.dropLast(strict ? 1 : 0) {
                warn(messagePrefix + "\(file):\(c.line): \(severity): \(LivePacing.crowdedMessage(count: c.count))")
            }
            if strict, let last = crowded.last {
                throw RackError(.dataError, "\(file):\(last.line): error: \(LivePacing.crowdedMessage(count: last.count))")
            }
            print("\(file): \(automation.events.count) events, \(automation.warnings.count + crowded.count) warnings, no errors")
        }
    }
}
