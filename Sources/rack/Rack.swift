import ArgumentParser
import Foundation
import RackEngine
import RackIO

@main
struct Rack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rack",
        abstract: "A JACK effects rack: file player + input → resonant low-pass → reverb → gain.",
        discussion: "Parameters:\n" + Parameters.all.map { spec in
            let range = spec.taper == .choice ? spec.choices.joined(separator: " ")
                : "\(formatNumber(spec.minimum))…\(formatNumber(spec.maximum)) \(spec.unit), default \(spec.format(spec.defaultValue))"
            return "  \(spec.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(spec.summary); \(range)"
        }.joined(separator: "\n") + "\n  (room default: \(Parameters[.room].format(Parameters[.room].defaultValue)))",
        subcommands: [RunCommand.self, RenderCommand.self, PresetsCommand.self, CheckCommand.self, SendCommand.self, PlotCommand.self, DemoLoopCommand.self])
}

/// Runs a command body, turning the rack's errors into one stderr line and the contract's
/// exit code.
func runReportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as RackError {
        FileHandle.standardError.write(Data((error.message + "\n").utf8))
        throw ExitCode(error.status.rawValue)
    } catch let error as AudioFileError {
        FileHandle.standardError.write(Data(("rack: " + error.description.replacingOccurrences(of: "rack: ", with: "") + "\n").utf8))
        throw ExitCode(error.exitCode)
    }
}

/// Prints a line on stdout at once (unbuffered: scripts read it from a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Prints a line on stderr.
func warn(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Reads a text file the user named, refusing devices and FIFOs before opening them.
func readTextFile(_ path: String, what: String) throws(RackError) -> String {
    var st = stat()
    guard stat(path, &st) == 0 else {
        throw RackError(.noInput, "rack: cannot open \(what) '\(path)': \(String(cString: strerror(errno)))")
    }
    guard (st.st_mode & S_IFMT) == S_IFREG else {
        throw RackError(.noInput, "rack: \(what) '\(path)' is not a regular file")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw RackError(.noInput, "rack: cannot read \(what) '\(path)'")
    }
    guard let text = String(data: data, encoding: .utf8) else {
        throw RackError(.dataError, "rack: \(what) '\(path)' is not UTF-8 text")
    }
    return text
}

/// Loads and checks an automation file; errors end the command (65), warnings are printed.
func loadAutomation(_ path: String, presets: PresetStore, length: Double?) throws(RackError) -> Automation {
    let text = try readTextFile(path, what: "automation file")
    let automation = Automation.parse(text, presetNames: Set(presets.all.map(\.name)),
                                      presetAtIndex: { presets.preset(index: $0)?.name }, length: length)
    for d in automation.diagnostics where d.severity == .warning { warn("rack: \(path):\(d.line): warning: \(d.message)") }
    let errors = automation.errors
    if !errors.isEmpty {
        for d in errors.dropLast() { warn("rack: \(path):\(d.line): error: \(d.message)") }
        let last = errors.last!
        throw RackError(.dataError, "rack: \(path):\(last.line): error: \(last.message)")
    }
    return automation
}

/// Prints the problems of the preset store (skipped files) as warnings.
func reportPresetProblems(_ store: PresetStore) {
    for p in store.problems { warn(p.message.replacingOccurrences(of: "rack: ", with: "rack: warning: ")) }
}

/// Looks a preset up by name or number (factory ≥ 0, user < 0); unknown ones are bad data (65).
func lookUpPreset(_ name: String, in presets: PresetStore) throws(RackError) -> Preset {
    guard let p = presets.preset(named: name) ?? Int(name).flatMap({ presets.preset(index: $0) }) else {
        throw RackError(.dataError, "rack: unknown preset '\(name)' (rack presets list shows them)")
    }
    return p
}

/// Applies one `--set PARAM=VALUE` (room by name); bad ones are data errors (65), out-of-range
/// values are clamped with a warning.
func applySetting(_ assignment: String, to state: inout RackState) throws(RackError) {
    let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, let spec = Parameters.named(parts[0]) else {
        throw RackError(.dataError, "rack: --set '\(assignment)': expected PARAM=VALUE with PARAM one of \(Parameters.all.map(\.name).joined(separator: ", "))")
    }
    if spec.taper == .choice {
        guard let i = spec.choices.firstIndex(of: parts[1]) else {
            throw RackError(.dataError, "rack: --set '\(assignment)': unknown \(spec.name) '\(parts[1])' (one of \(spec.choices.joined(separator: ", ")))")
        }
        state[spec.id] = Double(i)
        return
    }
    guard let v = Double(parts[1]), v.isFinite else {
        throw RackError(.dataError, "rack: --set '\(assignment)': '\(parts[1])' is not a finite number")
    }
    let c = spec.clamp(v)
    if c != v { warn("rack: warning: --set \(spec.name)=\(parts[1]) clamped to \(formatNumber(c)) \(spec.unit)") }
    state[spec.id] = c
}
