import RackDSP
import RackEngine
import RackWire

/// Setting and reading the parameters of the table: `/rack/PARAMETER`, `/rack/PARAMETER/norm`,
/// `/rack/get`, `/rack/dump`.
/// Their handlers keep no state of their own: each gets the context alone.
enum ParameterCommands {
    static let all = [
        OSCCommand(.get) { c, r throws(Reason) in try get(c, r) },
        OSCCommand(.dump) { c, r in dump(c, r) },
    ]

    /// The one place that looks up a choice (a room) by name, with the error text users see.
    static func roomValue(_ name: String) throws(Reason) -> Double {
        guard let room = Room(name: name) else { throw Reason(Room.unknownNameReason(name)) }
        return Double(room.rawValue)
    }

    /// `/rack/PARAMETER value [ramp]`: a value out of range is clamped, applied and reported.
    static func set(_ spec: ParameterSpec, normalized: Bool, _ c: CommandContext, _ r: Request) throws(Reason) {
        let args = r.arguments
        guard args.count == 1 || args.count == 2 else {
            throw Reason(spec.taper == .choice ? "expects a room name and an optional crossfade time" : "expects a value and an optional ramp time")
        }
        let ramp = try rampFrames(args, at: 1, sampleRate: c.sampleRate)
        var value: Double
        if spec.taper == .choice {
            guard let name = args[0].string else { throw Reason("expects a room name (s)") }
            value = try Self.roomValue(name)
        } else {
            guard let raw = args[0].number ?? Self.toggleValue(spec, args[0]) else {
                throw Reason(spec.taper == .toggle ? "expects 0 or 1 (f, i, T or F), got \(args[0])" : "expects a number (f or i), got \(args[0])")
            }
            guard raw.isFinite else { throw Reason("value must be finite") }
            let accepted = spec.accept(raw, normalized: normalized)
            value = accepted.value
            if let clamped = accepted.clamped {
                c.report(r, normalized ? "normalized value clamped to \(formatNumber(clamped))" : "clamped to \(formatNumber(clamped))")
            }
        }
        let time = try c.sample(for: r.timeTag)
        // The room rule: a room brings its own values of the controls that follow it, except
        // those this packet (message or bundle) set before it; one it sets after it overrides.
        // The room the rack has already (told back by a linked rack) brings nothing.
        c.datagram.parametersSet.insert(spec.id)
        var changes = [(id: spec.id, value: value, ramp: RampLength(frames: ramp))]
        let roomChanges = time != .now || !c.isTarget(.room, value)
        if spec.id == .room, roomChanges, let room = Room.at(index: Int(value)) {
            changes += RoomRule.implied(by: room, setAlso: c.datagram.parametersSet).map { (id: $0.0, value: $0.1, ramp: RampLength.standard) }
        }
        try c.submit(.parameters(changes), at: time, origin: r.from)
    }

    /// A toggle's value from `T` or `F` (nil for anything else, and for other parameters).
    static func toggleValue(_ spec: ParameterSpec, _ arg: OSCValue) -> Double? {
        guard spec.taper == .toggle, case let .bool(on) = arg else { return nil }
        return on ? spec.maximum : spec.minimum
    }

    /// Parses an optional ramp-time argument (seconds) into frames at `sampleRate` (Hz): 0 (the
    /// default ramp) when absent.
    static func rampFrames(_ args: [OSCValue], at index: Int, sampleRate: Double) throws(Reason) -> Int64 {
        guard args.count > index else { return 0 }
        guard let r = args[index].number else { throw Reason("ramp time must be a number of seconds") }
        if let problem = ParameterSpec.rampProblem(r) { throw Reason(problem) }
        return Int64((r * sampleRate).rounded())
    }

    /// `/rack/get NAME`: the parameter's target, as `/rack/NAME`.
    static func get(_ c: CommandContext, _ r: Request) throws(Reason) {
        let name = r.arguments[0].string ?? ""   // the signature took one string
        guard let spec = Parameters.named(name) else { throw Reason("unknown parameter '\(name)'" + Parameters.didYouMean(name)) }
        c.reply(Self.valueMessage(spec, c.targets[spec.id]), to: r.from)
    }

    /// `/rack/dump`: every target in table order, then `/rack/preset` with the last preset.
    static func dump(_ c: CommandContext, _ r: Request) {
        for spec in Parameters.all { c.reply(Self.valueMessage(spec, c.targets[spec.id]), to: r.from) }
        c.reply(OSCMessage(OSCCommandDeclaration.presetRecall.address, [.string(c.lastPreset)]), to: r.from)
    }

    /// A parameter's value as rack reports it (get, dump, feedback): a number, or a room name.
    static func valueMessage(_ spec: ParameterSpec, _ value: Double) -> OSCMessage {
        OSCMessage(spec.address, [spec.taper == .choice ? .string(spec.format(value)) : .float(Float(value))])
    }
}
