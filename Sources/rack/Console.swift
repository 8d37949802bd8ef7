import ArgumentParser
import Foundation
import RackEngine
import RackIO

// What the user sees on stdout and stderr: every line rack writes on its own account starts with
// the program's name, "rack: ".

/// The program's name in front of a message.
let messagePrefix = "rack: "

/// Runs a command body, turning the rack's errors into one stderr line and the documented
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
func say(_ line: String) { writeLine(line, to: STDOUT_FILENO) }

/// Prints a line on stderr.
func warn(_ line: String) { writeLine(line, to: STDERR_FILENO) }

/// Writes `line` and a newline to `fd`, whole; a reader that went away (EPIPE, with SIGPIPE
/// ignored) loses the line instead of stopping rack (Foundation's `FileHandle.write` traps).
private func writeLine(_ line: String, to fd: Int32) {
    let bytes = Array((line + "\n").utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        done += n
    }
}
