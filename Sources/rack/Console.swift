import ArgumentParser
import Foundation
import RackEngine
import RackIO

// What the user sees on stdout and stderr: every line rack writes on its own account starts with
// the program's name, "rack: ".

/// The program's name in front of a message.
let messagePrefix = "rack: "

/// Runs a command body, turning the rack's errors into one stderr line and the contract's
/// exit status.
func runReportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as RackError {
        warn(userMessage(error))
        throw ExitCode(error.status.rawValue)
    } catch let error as AudioFileError {
        warn(userMessage(error))
        throw ExitCode(error.status.rawValue)
    }
}

/// An error as the user reads it, on one line, with the program's name in front (no module
/// writes it into its messages: this is the one place it is added).
func userMessage(_ error: any Error) -> String {
    messagePrefix + "\(error)"
}

/// Prints a line on stdout at once (unbuffered: scripts read it from a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Prints a line on stderr.
func warn(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
