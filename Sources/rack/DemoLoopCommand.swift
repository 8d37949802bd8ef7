import ArgumentParser
import Foundation
import RackEngine
import RackIO

struct DemoLoopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-loop",
        abstract: "Write the synthesised demo loop that `rack run` plays without --file.",
        discussion: "Prints the path. Default: $XDG_CACHE_HOME/rack/demo-loop.wav (or ~/.cache/rack/demo-loop.wav).")

    @Argument(help: "Where to write it (wav).")
    var path: String?

    func run() throws {
        try runReportingErrors {
            let target = try path ?? DemoLoop.defaultPath()
            do {
                say(try DemoLoop.write(to: target))
            } catch let e as AudioFileError {
                throw e
            } catch {
                throw RackError(.cannotCreate, "cannot write '\(target)': \(error.localizedDescription)")
            }
        }
    }
}
