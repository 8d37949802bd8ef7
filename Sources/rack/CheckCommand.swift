import ArgumentParser
import Foundation
import RackEngine

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate an automation file; every problem is reported with its line number.",
        discussion: "Exit 0 when the file is valid (warnings allowed), 65 when it has errors, 66 when it cannot be read.")

    @Argument(help: "Automation file: one event a line, TIME ADDRESS ARGS..., # comments.")
    var file: String
    @Option(help: "Length of the input in seconds, to flag events and ramps past its end.")
    var length: Double?

    func run() throws {
        try runReportingErrors {
            let presets = PresetStore.standard()
            let automation = try loadAutomation(file, presets: presets, length: length)
            print("\(file): \(automation.events.count) events, \(automation.warnings.count) warnings, no errors")
        }
    }
}
