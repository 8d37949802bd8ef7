import RackEngine
import RackDSP

/// The stages of `Automation.parse`, one line at a time: the words, the time, the address (a
/// parameter of the table or a command `OSCAddressSpace` declares automatable), its arguments,
/// and the explicit ramps a change interrupts.
struct AutomationParser {
    let presetNames: Set<String>
    let presetAtIndex: (Int) -> String?
    /// The input's length in seconds, when known.
    let length: Double?
    private(set) var events: [AutomationEvent] = []
    private(set) var diagnostics: [AutomationDiagnostic] = []
    private var lastTime = -Double.infinity
    // Per parameter: until when its last explicit ramp runs, and from which line. A change
    // during a running explicit ramp interrupts it (as live: the later event wins, from
    // wherever the ramp had got to) and is a warning; a change may interrupt a default
    // ramp silently (a fader sends a stream of plain values).
    private var busyUntil = [Double](repeating: -.infinity, count: ParameterID.allCases.count)
    private var busyLine = [Int](repeating: 0, count: ParameterID.allCases.count)
    /// The line being parsed.
    private var lineNumber = 0
    /// True once a line turned looping on: the input then plays on past its end, and events
    /// there apply.
    private var looping = false
    /// The engine rate a `rate HZ` line gave (a recording's: the rate it was heard at).
    private(set) var sampleRate: Double?

    init(presetNames: Set<String>, presetAtIndex: @escaping (Int) -> String?, length: Double?) {
        self.presetNames = presetNames
        self.presetAtIndex = presetAtIndex
        self.length = length
    }

    mutating func parse<S: StringProtocol>(_ raw: S, lineNumber: Int) {
        self.lineNumber = lineNumber
        guard let words = Automation.tokenize(raw) else { error("unterminated quoted string"); return }
        if words.isEmpty { return }
        if words[0] == Automation.rateKeyword { rate(words); return }
        guard let time = time(words[0]) else { return }
        guard words.count >= 2 else { error("missing OSC address after the time"); return }
        let address = words[1]
        let args = Array(words.dropFirst(2))
        let action: AutomationAction?
        if let parameter = ParameterAddress(parsing: address) {
            action = parameterAction(parameter, address: address, args: args, time: time)
        } else {
            action = commandAction(address, args: args, time: time)
        }
        guard let action else { return }
        if case let .loop(on) = action { looping = looping || on }
        if let length, time >= length, !looping {
            // A render ends at the input's length: an event at it or beyond is never heard.
            let end = formatNumber(length)
            warning(time == length
                ? "event at \(formatNumber(time)) s is at the end of the input (\(end) s): nothing after it is rendered, so it is ignored"
                : "event at \(formatNumber(time)) s is past the end of the input (\(end) s) and is ignored")
        }
        events.append(AutomationEvent(line: lineNumber, time: time, address: address, action: action, arguments: args))
    }

    /// `rate HZ`: the engine rate the file's times were heard at, once in a file.
    private mutating func rate(_ words: [String]) {
        guard words.count == 2, let hz = DecimalNumber.parse(words[1]) else {
            error("\(Automation.rateKeyword) takes one number of Hz, e.g. '\(Automation.rateKeyword) 48000'"); return
        }
        if let problem = EngineFormat.problem(sampleRate: hz) { error("\(Automation.rateKeyword) \(words[1]): \(problem)"); return }
        if let first = sampleRate { error("a second \(Automation.rateKeyword) line (the first gave \(formatNumber(first)) Hz)"); return }
        sampleRate = hz
    }

    /// The line's time: a number of seconds, not negative, within the limit, not going back.
    private mutating func time(_ word: String) -> Double? {
        guard let time = DecimalNumber.parse(word) else {
            error("time '\(word)' is not a number of seconds"); return nil
        }
        if time < 0 { error("time \(word) is negative"); return nil }
        if time > Automation.maximumTimeSeconds {
            error("time \(word) is beyond \(formatNumber(Automation.maximumTimeSeconds)) s"); return nil
        }
        if time < lastTime { error("time \(formatNumber(time)) s goes backwards (previous event at \(formatNumber(lastTime)) s)"); return nil }
        lastTime = time
        return time
    }

    /// `/rack/PARAMETER[/norm] value [ramp]`.
    private mutating func parameterAction(_ parameter: ParameterAddress, address: String, args: [String], time: Double) -> AutomationAction? {
        let spec = parameter.spec
        let isNorm = parameter.isNormalized
        if spec.taper == .choice {
            guard args.count >= 1 && args.count <= 2 else { error("\(address) takes a room name and an optional crossfade time"); return nil }
            guard let room = Room(name: args[0]) else { error(Room.unknownNameReason(args[0])); return nil }
            guard let r = ramp(args, 1) else { return nil }
            if let r, let cap = spec.shortenedRamp(seconds: r) { warning("crossfade \(formatNumber(r)) s shortened to \(formatNumber(cap)) s") }
            occupy([spec.id], ramp: r, time: time)
            return .set(spec.id, value: Double(room.rawValue), rampSeconds: r)
        }
        guard args.count >= 1 && args.count <= 2 else { error("\(address) takes a value and an optional ramp time"); return nil }
        guard let raw = number(args[0], what: "value") else { return nil }
        guard let r = ramp(args, 1) else { return nil }
        let (value, clamped) = spec.accept(raw, normalized: isNorm)
        if let clamped {
            warning(isNorm ? "normalized value \(args[0]) clamped to \(formatNumber(clamped))"
                           : "\(spec.name) \(args[0]) clamped to \(spec.format(clamped)) \(spec.unit)")
        }
        occupy([spec.id], ramp: r, time: time)
        return .set(spec.id, value: value, rampSeconds: r)
    }

    /// A command of the address space, when it is declared automatable.
    private mutating func commandAction(_ address: String, args: [String], time: Double) -> AutomationAction? {
        let role = OSCAddressSpace.byAddress[address]?.automation
        switch role {
        case .presetRecall:
            guard args.count >= 1 && args.count <= 2 else { error("\(address) takes a preset name or index and an optional ramp time"); return nil }
            // A name (exact first, then ignoring case), else a number.
            guard let name = NameMatch.find(args[0], in: presetNames) ?? Int(args[0]).flatMap(presetAtIndex) else {
                // The names in name order (the parser knows names, not numbers), a bounded list.
                error(PresetStore.unknownNameReason(args[0], among: presetNames.sorted())); return nil
            }
            guard let r = ramp(args, 1) else { return nil }
            occupy(ParameterID.allCases, ramp: r, time: time)
            return .preset(name: name, rampSeconds: r)
        case .play, .stop:
            guard args.isEmpty else { error("\(address) takes no arguments"); return nil }
            return role == .play ? .play : .stop
        case .loop:
            guard args.count == 1, let v = DecimalNumber.parse(args[0]), v == 0 || v == 1 else { error("\(address) takes 0 or 1"); return nil }
            return .loop(v == 1)
        case .seek:
            guard args.count == 1 else { error("\(address) takes a position in seconds"); return nil }
            guard let seconds = number(args[0], what: "position") else { return nil }
            guard seconds >= 0 else { error("position \(args[0]) is negative"); return nil }
            if time > 0 { warning("rack render starts from a seek at time 0 only; it does not replay this one (rack send sends it)") }
            return .seek(seconds: seconds)
        case nil:
            if address.hasPrefix("/") {
                // A known command that is not automatable is not "meant" to be a near one.
                let known = OSCAddressSpace.byAddress[address] != nil
                error("unknown or non-automatable address '\(address)'"
                      + (known ? "" : NameMatch.didYouMean(address, in: OSCAddressSpace.automatableAddresses)))
            } else {
                error("'\(address)' is not an OSC address")
            }
            return nil
        }
    }

    private mutating func number(_ s: String, what: String) -> Double? {
        guard let v = DecimalNumber.parse(s) else {
            switch Double(s) {
            case let .some(other) where !other.isFinite: error("\(what) '\(s)' is not finite")
            case .some: error("\(what) '\(s)' is not a decimal number")
            case .none: error("\(what) '\(s)' is not a number")
            }
            return nil
        }
        return v
    }

    /// The optional ramp time at `index`: `.some(nil)` when absent, nil when refused.
    private mutating func ramp(_ args: [String], _ index: Int) -> Double?? {
        guard args.count > index else { return .some(nil) }
        guard let r = number(args[index], what: "ramp time") else { return nil }
        if let problem = ParameterSpec.rampProblem(r) { error("\(problem) (\(args[index]))"); return nil }
        return .some(r)
    }

    /// Claims the parameters for a change at `time`; one warning for the explicit ramps it
    /// interrupts.
    private mutating func occupy(_ ids: [ParameterID], ramp: Double?, time: Double) {
        var interrupted: [String] = []
        for id in ids {
            let spec = Parameters[id]
            let explicit = ramp.flatMap { $0 > 0 ? $0 : nil }
            let r = min(explicit ?? spec.defaultRampSeconds, spec.maximumRampSeconds)
            // Times are compared to a microsecond: back-to-back ramps (0.1 + 0.02 = 0.12) meet.
            if time < busyUntil[id.rawValue] - 1e-6 {
                let until = (busyUntil[id.rawValue] * 1e6).rounded() / 1e6
                interrupted.append("the ramp of \(spec.name) from line \(busyLine[id.rawValue]) (running until \(formatNumber(until)) s)")
            }
            busyUntil[id.rawValue] = explicit == nil ? -.infinity : time + r
            busyLine[id.rawValue] = lineNumber
            if let length, !looping, time < length, time + r > length {
                warning("ramp of \(spec.name) runs past the end of the input (\(formatNumber(length)) s)")
            }
        }
        if !interrupted.isEmpty {
            warning("interrupts \(interrupted.joined(separator: ", ")): it stops where it has got to")
        }
    }

    private mutating func error(_ message: String) {
        diagnostics.append(AutomationDiagnostic(line: lineNumber, severity: .error, message: message))
    }

    private mutating func warning(_ message: String) {
        diagnostics.append(AutomationDiagnostic(line: lineNumber, severity: .warning, message: message))
    }
}
