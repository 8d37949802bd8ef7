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

    /// Latest event time a file may give, in seconds: one week. Far beyond any session, and
    /// far below where sample positions (Int64 frames at up to 384 kHz) could overflow.
    public static let maximumTimeSeconds = 7 * 24 * 3600.0

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
            return Automation(events: parser.events, diagnostics: parser.diagnostics)
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

    /// The engine events of this automation at `sampleRate`: a preset recall becomes a ramp of
    /// every parameter; a room change brings its own values of the controls that follow the
    /// room except those set by a line at the same time (the room rule: the lines at one time
    /// are one group, as a recording writes them). Events at or after `lengthFrames` (when
    /// given) are left out.
    public func engineEvents(sampleRate: Double, presets: PresetStore, lengthFrames: Int64? = nil) -> [EngineEvent] {
        var out: [EngineEvent] = []
        func ramp(_ s: Double?) -> RampLength { RampLength(frames: s.map { Int64(($0 * sampleRate).rounded()) } ?? 0) }
        func sample(_ e: AutomationEvent) -> Int64 { Int64((e.time * sampleRate).rounded()) }
        let setAt = parametersSet(sampleRate: sampleRate)
        for e in events {
            let t = sample(e)
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
                out += p.state.events(at: t, ramp: ramp(seconds))
            case .play: out.append(EngineEvent(sampleTime: t, .play))
            case .stop: out.append(EngineEvent(sampleTime: t, .stop))
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
    public static func line(for e: EngineEvent, sampleRate: Double, origin: Int64) -> String? {
        line(for: e, atSeconds: Double(e.sampleTime - origin) / sampleRate, sampleRate: sampleRate)
    }

    /// The line for an applied event at `seconds` in the file (nil for kinds a file cannot
    /// say); its ramp, in frames at `sampleRate`, is written in seconds.
    public static func line(for e: EngineEvent, atSeconds seconds: Double, sampleRate: Double) -> String? {
        let t = time(seconds: seconds)
        if let change = e.action.parameterChange {
            let spec = Parameters[change.parameter]
            let ramp = change.ramp.givenFrames.map { " " + String(format: "%.6f", Double($0) / sampleRate) } ?? ""
            // The shortest text that reads back as the same Double: the replay is exact.
            let value = spec.taper == .choice ? spec.format(change.value) : formatNumber(change.value)
            return "\(t) \(spec.address) \(value)\(ramp)"
        }
        switch e.action {
        case .play: return "\(t) /rack/player/play"
        case .stop: return "\(t) /rack/player/stop"
        default: return nil
        }
    }

    /// The line for a preset recall that took effect at `sampleTime`.
    public static func presetLine(name: String, rampFrames: Int64, sampleTime: Int64, sampleRate: Double, origin: Int64) -> String {
        presetLine(name: name, rampFrames: rampFrames, atSeconds: Double(sampleTime - origin) / sampleRate, sampleRate: sampleRate)
    }

    /// The line for a preset recall at `seconds` in the file, its ramp in frames at `sampleRate`.
    public static func presetLine(name: String, rampFrames: Int64, atSeconds seconds: Double, sampleRate: Double) -> String {
        let ramp = rampFrames > 0 ? " " + String(format: "%.6f", Double(rampFrames) / sampleRate) : ""
        return "\(time(seconds: seconds)) /rack/preset \(Automation.quote(name))\(ramp)"
    }
}
