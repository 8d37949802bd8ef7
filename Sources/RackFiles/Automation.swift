import RackEngine
import Foundation
import RackDSP

/// One problem found in an automation file.
public struct AutomationDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }
    public let line: Int
    public let severity: Severity
    public let message: String

    public var description: String { "line \(line): \(severity.rawValue): \(message)" }
}

/// What one line of an automation file does. The language is the OSC address space: the
/// parameters of the table and the commands `OSCAddressSpace` declares automatable.
public enum AutomationAction: Sendable, Equatable {
    /// Ramp a parameter to a value (already clamped), over `rampSeconds` (nil: the default).
    case set(ParameterID, value: Double, rampSeconds: Double?)
    /// Recall a preset by name, every parameter ramping over `rampSeconds` (nil: the defaults).
    case preset(name: String, rampSeconds: Double?)
    case play
    case stop
    /// The player loops its file (true) or stops at the end of the pass being heard (false),
    /// from this time on.
    case loop(Bool)
    /// The player goes to this position in its file, in seconds. `rack render` starts from the
    /// position a seek at time 0 gives; it does not replay later seeks (`rack send` sends them).
    case seek(seconds: Double)
}

/// One event of an automation file.
public struct AutomationEvent: Sendable, Equatable {
    public let line: Int
    /// Seconds from the start of the render / send.
    public let time: Double
    public let address: String
    public let action: AutomationAction
    /// The arguments as written (for `rack send`).
    public let arguments: [String]
}

/// An automation file, parsed and checked: `TIME ADDRESS ARGS...` a line, `#` starts a comment.
public struct Automation: Sendable {
    public let events: [AutomationEvent]
    public let diagnostics: [AutomationDiagnostic]
    /// The engine rate in Hz a `rate HZ` line gives (a recording's: the rate it was heard at;
    /// `rack render` renders at it unless `--rate` says otherwise), nil without one.
    public var sampleRate: Double?

    /// The word of the line that gives the file's engine rate: `rate 48000`.
    public static let rateKeyword = "rate"

    /// Latest event time a file may give, in seconds, and the longest render (input, loops and
    /// tail together): one day, 33 GB of float stereo at 48 kHz. Far beyond any session; a week
    /// let a two-line file (a loop, an event at 604,000 s) render 232 GB.
    public static let maximumTimeSeconds = 24 * 3600.0

    public var errors: [AutomationDiagnostic] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [AutomationDiagnostic] { diagnostics.filter { $0.severity == .warning } }

    /// Parses `text`. `presetNames` are the presets a `/rack/preset` line may name (an index is
    /// resolved with `presetAtIndex`). `length` (seconds), when known, flags events and ramps
    /// that run past the end.
    public static func parse(_ text: String, presetNames: Set<String>, presetAtIndex: (Int) -> String?,
                             length: Double? = nil) -> Automation {
        withoutActuallyEscaping(presetAtIndex) { presetAtIndex in
            var parser = AutomationParser(presetNames: presetNames, presetAtIndex: presetAtIndex, length: length)
            for (i, raw) in lines(of: text).enumerated() {
                parser.parse(raw, lineNumber: i + 1)
            }
            return Automation(events: parser.events, diagnostics: parser.diagnostics, sampleRate: parser.sampleRate)
        }
    }

    /// The lines of an automation file: `\n`, `\r\n` (one `Character` in Swift, so a split on
    /// `\n` alone would miss it) and a lone `\r` each end a line, so a file saved on Windows or
    /// classic Mac OS reads as it was written, line numbers included.
    public static func lines(of text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
    }

    /// Splits a line into words: blanks separate, "double quotes" group (for preset names
    /// with spaces), `#` outside quotes starts a comment. Nil for an unterminated quote.
    static func tokenize<S: StringProtocol>(_ line: S) -> [String]? {
        var words: [String] = []
        var current = ""
        var inWord = false, quoted = false
        for c in line {
            if quoted {
                if c == "\"" { quoted = false } else { current.append(c) }
            } else if c == "\"" {
                quoted = true
                inWord = true
            } else if c == "#" {
                break
            } else if c == " " || c == "\t" || c == "\r" {
                if inWord { words.append(current); current = ""; inWord = false }
            } else {
                current.append(c)
                inWord = true
            }
        }
        if quoted { return nil }
        if inWord { words.append(current) }
        return words
    }

    /// A word as the tokenizer reads it back: quoted when it holds blanks, quotes or `#`.
    public static func quote(_ word: String) -> String {
        word.contains(where: { $0 == " " || $0 == "\t" || $0 == "#" || $0 == "\"" }) || word.isEmpty ? "\"" + word.replacingOccurrences(of: "\"", with: "") + "\"" : word
    }

    /// The parameters the lines set at each sample (at `sampleRate`): the groups of the room
    /// rule (`RoomRule`).
    public func parametersSet(sampleRate: Double) -> [Int64: Set<ParameterID>] {
        var setAt: [Int64: Set<ParameterID>] = [:]
        for e in events {
            if case let .set(id, _, _) = e.action { setAt[Int64((e.time * sampleRate).rounded()), default: []].insert(id) }
        }
        return setAt
    }

    /// True for a line of the starting state: a parameter change or preset recall at time 0
    /// without a ramp. Before the first sample nothing has been heard to ramp from, so these
    /// set the state a render starts from (a recording begins with them: the state it was
    /// made from) instead of ramping to it.
    public static func isStartingState(_ e: AutomationEvent) -> Bool {
        guard e.time == 0 else { return false }
        switch e.action {
        case .set(_, _, nil), .preset(_, nil): return true
        default: return false
        }
    }

    /// `base` with the starting-state lines applied in file order (`isStartingState`);
    /// `presetState` resolves a recalled preset.
    public func startingState(from base: RackState, presetState: (String) -> RackState?) -> RackState {
        var state = base
        var setAtStart = Set<ParameterID>()
        for e in events where Self.isStartingState(e) {
            if case let .set(id, _, _) = e.action { setAtStart.insert(id) }
        }
        for e in events where Self.isStartingState(e) {
            switch e.action {
            case let .set(id, value, _):
                state[id] = value
                // The room rule: the starting lines are one group.
                if id == .room, let room = Room.at(index: Int(value)) {
                    for (implied, v) in RoomRule.implied(by: room, setAlso: setAtStart) { state[implied] = v }
                }
            case let .preset(name, _): if let recalled = presetState(name) { state = recalled }
            default: break
            }
        }
        return state
    }

    /// `base` with the starting-state lines applied, presets from `presets`.
    public func startingState(from base: RackState, presets: PresetStore) -> RackState {
        startingState(from: base, presetState: { presets.preset(named: $0)?.state })
    }

    /// Where the player starts in its file, in seconds: the last seek at time 0 (0 without one).
    public var startSeconds: Double {
        var start = 0.0
        for e in events where e.time == 0 { if case let .seek(seconds) = e.action { start = seconds } }
        return start
    }

    /// The loop flag's changes, in order: (time in seconds, on).
    public var loopChanges: [(time: Double, on: Bool)] {
        events.compactMap { e in
            if case let .loop(on) = e.action { return (e.time, on) }
            return nil
        }
    }

    /// True when the file turns looping on at some time: the input then plays on past its end.
    public var loops: Bool { loopChanges.contains { $0.on } }

    /// When the last event's change is complete, in seconds: its time plus its explicit ramp.
    public var endSeconds: Double {
        events.map { e in
            switch e.action {
            case let .set(_, _, ramp?), let .preset(_, ramp?): return e.time + ramp
            default: return e.time
            }
        }.max() ?? 0
    }

    /// The engine events of this automation at `sampleRate`: a preset recall becomes a ramp of
    /// every parameter; a room change brings its own values of the controls that follow the
    /// room except those set by a line at the same time (the room rule: the lines at one time
    /// are one group, as a recording writes them). The starting state is not among them
    /// (`startingState`); neither are the player's loop and seek, which act on the reader.
    /// Events at or after `lengthFrames` (when given) are left out.
    public func engineEvents(sampleRate: Double, presets: PresetStore, lengthFrames: Int64? = nil) -> [EngineEvent] {
        var out: [EngineEvent] = []
        func ramp(_ s: Double?) -> RampLength { RampLength(frames: s.map { Int64(($0 * sampleRate).rounded()) } ?? 0) }
        let setAt = parametersSet(sampleRate: sampleRate)
        for e in events where !Self.isStartingState(e) {
            let t = Int64((e.time * sampleRate).rounded())
            if let lengthFrames, t >= lengthFrames { continue }
            switch e.action {
            case let .set(id, value, seconds):
                out.append(EngineEvent(sampleTime: t, .set(id, value, ramp: ramp(seconds))))
                if id == .room, let room = Room.at(index: Int(value)) {
                    out += RoomRule.implied(by: room, setAlso: setAt[t] ?? []).map {
                        EngineEvent(sampleTime: t, .set($0.0, $0.1, ramp: .standard))
                    }
                }
            case let .preset(name, seconds):
                guard let p = presets.preset(named: name) else { continue }
                out += p.state.events(at: .at(t), ramp: ramp(seconds))
            case .play: out.append(EngineEvent(sampleTime: t, .play))
            case .stop: out.append(EngineEvent(sampleTime: t, .stop))
            case .loop, .seek: continue
            }
        }
        return out
    }
}

/// Formats applied changes as automation lines (what `rack run --record` writes), so that
/// `rack render --automation` replays them at the same samples.
public enum AutomationWriter {
    /// Time in seconds with enough digits (a microsecond) to land on the same sample at any
    /// supported rate (a frame lasts at least 2.6 µs at 384 kHz).
    public static func time(_ sampleTime: Int64, sampleRate: Double) -> String {
        time(seconds: Double(sampleTime) / sampleRate)
    }

    /// Seconds as an automation file writes them.
    public static func time(seconds: Double) -> String { String(format: "%.6f", seconds) }

    /// The line for an applied parameter event (nil for other kinds), its time counted from
    /// sample `origin`.
    public static func line(for e: AppliedEvent, sampleRate: Double, origin: Int64) -> String? {
        line(for: e.action, atSeconds: Double(e.sampleTime - origin) / sampleRate, sampleRate: sampleRate)
    }

    /// The line for an applied event at `seconds` in the file (nil for kinds a file cannot
    /// say); its ramp, in frames at `sampleRate`, is written in seconds.
    public static func line(for action: EngineAction, atSeconds seconds: Double, sampleRate: Double) -> String? {
        let t = time(seconds: seconds)
        if let change = action.parameterChange {
            let spec = Parameters[change.parameter]
            let ramp = change.ramp.givenFrames.map { " " + String(format: "%.6f", Double($0) / sampleRate) } ?? ""
            return "\(t) \(spec.address) \(value(change.value, of: spec))\(ramp)"
        }
        switch action {
        case .play: return "\(t) /rack/player/play"
        case .stop: return "\(t) /rack/player/stop"
        case .set, .midiSet, .marker: return nil
        }
    }

    /// A parameter's value as a file writes it: a room by name, a number as the shortest text
    /// that reads back as the same 32-bit float, the precision OSC carries values with (so
    /// `/rack/mix/norm 0.9`, applied as 89.99999761581421 %, is written 90). What a replay
    /// changes by that is below a part in 10^7 of the value.
    public static func value(_ v: Double, of spec: ParameterSpec) -> String {
        if spec.taper == .choice { return spec.format(v) }
        let single = Float(v)
        if single == single.rounded(), abs(single) < 1e15 { return String(Int64(single)) }
        return "\(single)"
    }

    /// The lines a recording starts with: the state it was made from, at time 0 and without
    /// ramps, so that they set the state a replay starts from (`Automation.isStartingState`):
    /// the preset last recalled (when there is one), every parameter of the table, the loop
    /// flag and the player's position.
    public static func startingLines(state: RackState, preset: String, loop: Bool, positionSeconds: Double) -> [String] {
        let t = time(seconds: 0)
        // The preset by name only in a comment: its values follow, so the file replays where
        // no preset of that name exists (another user, another machine).
        var lines = preset.isEmpty ? [] : ["# preset \(Automation.quote(preset)): its values follow"]
        lines += Parameters.all.map { "\(t) \($0.address) \(value(state[$0.id], of: $0))" }
        lines.append("\(t) \(playerAddress(.loop)) \(loop ? 1 : 0)")
        lines.append("\(t) \(playerAddress(.seek)) \(formatNumber((positionSeconds * 1e6).rounded() / 1e6))")
        return lines
    }

    /// The line for a change of the loop flag at `seconds` in the file.
    public static func loopLine(_ on: Bool, atSeconds seconds: Double) -> String {
        "\(time(seconds: seconds)) \(playerAddress(.loop)) \(on ? 1 : 0)"
    }

    /// The line that ends a recording at `seconds`: the rack stopped there (a replay that
    /// loops lasts until then).
    public static func endLine(atSeconds seconds: Double) -> String {
        "\(time(seconds: seconds)) \(playerAddress(.stop)) # the recording ends"
    }

    /// The address the address space declares for an automation role.
    static func playerAddress(_ role: OSCCommandDeclaration.AutomationRole) -> String {
        OSCAddressSpace.commands.first { $0.automation == role }!.address
    }

    /// The comment for a preset recall at `seconds` in the file (its ramp in frames at
    /// `sampleRate`): the recall itself is written as the values it set, which follow it.
    public static func presetComment(name: String, rampFrames: Int64, atSeconds seconds: Double, sampleRate: Double) -> String {
        let ramp = rampFrames > 0 ? " over " + String(format: "%.6f", Double(rampFrames) / sampleRate) + " s" : ""
        return "# \(time(seconds: seconds)) preset \(Automation.quote(name)) recalled\(ramp): its values follow"
    }
}
