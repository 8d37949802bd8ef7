import ArgumentParser
import Foundation
import RackPathText
import RackDSP
import RackEngine
import RackFiles

// The user's input to the commands: text files, automation files, preset names, --set.

/// Reads a text file the user named, refusing devices and FIFOs before opening them.
/// The path is a `PathText` string (its bytes need not be UTF-8); messages show it escaped.
func readTextFile(_ path: String, what: String) throws(RackError) -> String {
    let shown = PathText.display(path)
    var st = stat()
    guard PathText.withCPath(path, { stat($0, &st) }) == 0 else {
        throw RackError(.noInput, "cannot open \(what) '\(shown)': \(String(cString: strerror(errno)))")
    }
    guard (st.st_mode & S_IFMT) == S_IFREG else {
        throw RackError(.noInput, "\(what) '\(shown)' is not a regular file")
    }
    let fd = PathText.withCPath(path) { open($0, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) }
    guard fd >= 0, let data = try? FileHandle(fileDescriptor: fd, closeOnDealloc: true).readToEnd() ?? Data() else {
        throw RackError(.noInput, "cannot read \(what) '\(shown)'")
    }
    guard let text = String(data: data, encoding: .utf8) else {
        throw RackError(.dataError, "\(what) '\(shown)' is not UTF-8 text")
    }
    return text
}

/// Reads and parses an automation file; returns its text too (the plot places problems on it).
func readAutomation(_ path: String, presets: PresetStore, length: Double?) throws(RackError)
    -> (text: String, automation: Automation) {
    let text = try readTextFile(path, what: "automation file")
    let automation = Automation.parse(text, presetNames: Set(presets.all.map(\.name)),
                                      presetAtIndex: { presets.preset(index: $0)?.name }, length: length)
    return (text, automation)
}

/// Prints an automation file's warnings and all but its last error, one line each, as rack check
/// reports them; returns the last error (`suffix` after its text) as the command's failure (65),
/// `nil` when there are no errors. With `warningsAreErrors` (`rack check --strict`) every
/// warning is reported and counted as an error.
func reportProblems(of automation: Automation, in path: String, lastErrorSuffix suffix: String = "",
                    warningsAreErrors: Bool = false) -> RackError? {
    if !warningsAreErrors {
        for d in automation.warnings { warn("rack: \(path):\(d.line): warning: \(d.message)") }
    }
    let errors = warningsAreErrors ? automation.diagnostics : automation.errors
    guard let last = errors.last else { return nil }
    for d in errors.dropLast() { warn("rack: \(path):\(d.line): error: \(d.message)") }
    return RackError(.dataError, "\(path):\(last.line): error: \(last.message)\(suffix)")
}

/// Loads and checks an automation file; errors end the command (65), warnings are printed.
func loadAutomation(_ path: String, presets: PresetStore, length: Double?) throws(RackError) -> Automation {
    let automation = try readAutomation(path, presets: presets, length: length).automation
    if let failure = reportProblems(of: automation, in: path) { throw failure }
    return automation
}

/// Prints the problems of the preset store (skipped files) as warnings.
func reportPresetProblems(_ store: PresetStore) {
    for p in store.problems { warn(messagePrefix + "warning: " + p.message) }
}

/// Looks a preset up by name (exact first, then ignoring case) or number (factory ≥ 0, user
/// < 0); unknown ones are bad data (65), the error listing the presets there are.
func lookUpPreset(_ name: String, in presets: PresetStore) throws(RackError) -> Preset {
    guard let p = presets.preset(namedOrNumbered: name) else { throw RackError(.dataError, presets.unknownNameReason(name)) }
    return p
}

/// Applies a list of `--set PARAM=VALUE` in order, then the room rule: a room set by the list
/// brings its own values of the controls that follow it, except those the list sets.
func applySettings(_ assignments: [String], to state: inout RackState) throws(RackError) {
    var set: Set<ParameterID> = []
    for assignment in assignments { set.insert(try applySetting(assignment, to: &state)) }
    guard set.contains(.room) else { return }
    for (id, value) in RoomRule.implied(by: state.room, setAlso: set) { state[id] = value }
}

/// Applies one `--set PARAM=VALUE` (room by name); bad ones are data errors (65), out-of-range
/// values are clamped with a warning.
@discardableResult
func applySetting(_ assignment: String, to state: inout RackState) throws(RackError) -> ParameterID {
    let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, let spec = Parameters.named(parts[0]) else {
        let hint = parts.count == 2 ? Parameters.didYouMean(parts[0]) : ""
        throw RackError(.dataError, "--set '\(assignment)': expected PARAM=VALUE with PARAM one of \(Parameters.all.map(\.name).joined(separator: ", "))\(hint)")
    }
    if spec.taper == .choice {
        guard let room = Room(name: parts[1]) else {
            throw RackError(.dataError, "--set '\(assignment)': \(Room.unknownNameReason(parts[1]))")
        }
        state[spec.id] = Double(room.rawValue)
        return spec.id
    }
    guard let v = DecimalNumber.parse(parts[1]) else {
        throw RackError(.dataError, "--set '\(assignment)': '\(parts[1])' is not a finite decimal number")
    }
    let c = spec.clamp(v)
    if c != v { warn("rack: warning: --set \(spec.name)=\(parts[1]) clamped to \(spec.format(c)) \(spec.unit)") }
    state[spec.id] = c
    return spec.id
}

/// An option's number (`--tail`, `--rate`, `--length`…): decimal only, as `--set` reads its
/// values (`DecimalNumber`); anything else is a usage error naming it.
func decimalArgument(_ text: String) throws -> Double {
    guard let v = DecimalNumber.parse(text) else { throw ValidationError("'\(text)' is not a finite decimal number") }
    return v
}
