import ArgumentParser
import Foundation
import RackPathText
import RackEngine

@main
struct Rack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rack",
        abstract: "A JACK effects rack: file player + input → resonant low-pass → reverb → gain.",
        discussion: "Parameters:\n" + Parameters.all.map { spec in
            let range = spec.taper == .choice ? spec.choices.joined(separator: " ")
                : "\(spec.format(spec.minimum))…\(spec.format(spec.maximum)) \(spec.unit), default \(spec.format(spec.defaultValue))"
            return hangingIndent("  \(spec.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(spec.summary); \(range)", indent: 13)
        }.joined(separator: "\n") + "\n  (room default: \(Parameters[.room].format(Parameters[.room].defaultValue)))",
        version: RackVersion.line,
        subcommands: [RunCommand.self, RenderCommand.self, PresetsCommand.self, CheckCommand.self, SendCommand.self, PlotCommand.self, DemoLoopCommand.self, LV2Command.self, ManualSectionsCommand.self])
}

extension Rack {
    /// The entry point: ArgumentParser's, except that bare `rack` under a session manager runs
    /// the rack, and a usage error is the documented one line
    /// (`rack: MESSAGE`, exit 64) instead of the parser's error, usage and help hint. Help and
    /// version requests print as usual; errors the commands already reported end with their
    /// own status.
    static func main() {
        do {
            // A session manager starts the executable with no arguments (`/nsm/server/add rack`):
            // with NSM_URL set, bare `rack` is `rack run`. Without it, the usage as ever.
            let bare = CommandLine.arguments.count == 1 && ProcessInfo.processInfo.environment["NSM_URL"] != nil
            var command = try parseAsRoot(bare ? ["run"] : argumentBytes())
            try command.run()
        } catch {
            finish(with: error)
        }
    }

    /// The arguments as the kernel gave them, as `PathText` strings: a file name that is not
    /// UTF-8 (`$'\xff\xfe-x.wav'`) keeps its bytes (`CommandLine.arguments` repairs them to
    /// U+FFFD, naming a file that does not exist).
    static func argumentBytes() -> [String] {
        (1..<Int(CommandLine.argc)).compactMap { CommandLine.unsafeArgv[$0].map { PathText.fromCString(UnsafePointer($0)) } }
    }

    /// Ends the process for `error` as documented (see `main`).
    static func finish(with error: Error) -> Never {
        let code = exitCode(for: error)
        if error is ExitCode || code == .success {
            // Already reported (runReportingErrors), or a help/version request: as the parser does.
            exit(withError: error)
        }
        let text = message(for: error)
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        warn(messagePrefix + (text.isEmpty ? "invalid arguments (rack --help shows them)" : text))
        Foundation.exit(code.rawValue)
    }
}
