import RackEngine
import RackFiles
import RackWire

/// A change a transport asks of the rack's state: OSC over UDP or a WebSocket, an automation
/// file sent with `rack send`, a preset recall (`/rack/preset`, a MIDI program change). Every
/// transport submits one of these to `ControlState`; nothing else writes the targets.
enum StateChange {
    /// Parameters to values (already validated and clamped), each over its ramp: one message's
    /// parameter and the values the room rule brings with it.
    case parameters([(id: ParameterID, value: Double, ramp: RampLength)])
    /// A preset's every parameter over `rampFrames` (0: each one's default), behind a marker
    /// whose echo says where it took effect.
    case preset(name: String, state: RackState, rampFrames: Int64)
}

/// Where a change came from, as its record says (what a sink may tell apart).
public enum ChangeSource: Sendable, Equatable {
    /// Posted by the control side (any transport, a preset recall) and applied by the engine.
    case control
    /// A bound MIDI controller, applied sample-accurately by the render thread's MIDI stage and
    /// known to the control side from its echo.
    case midiController
    /// The engine taking up the state after the JACK server came back (no ramp): the targets
    /// already held it and its sinks were told when it changed.
    case rejoin
    /// Applied to the state while no server ran (no engine sample: the engine takes it up on
    /// rejoin).
    case whileAway
}

/// One thing that changed: what, its new value, where it came from, and the engine's echo it
/// came back as (the sample it took effect at, its ramp), nil for a change applied while away.
public struct ChangeRecord: Sendable, Equatable {
    public enum Change: Sendable, Equatable {
        /// A parameter's new target.
        case parameter(ParameterID, Double)
        /// A preset recall took effect (its parameters follow as their own records).
        case preset(name: String, rampFrames: Int64)
        /// The player's transport started or stopped.
        case transport(playing: Bool)
    }

    public var change: Change
    public var source: ChangeSource
    public var echo: AppliedEvent?
    /// The endpoint whose message made the change (nil for MIDI, the engine's rejoin and what
    /// no endpoint asked for): a linked subscriber is never told its own change back.
    public var origin: OSCEndpoint?

    public init(change: Change, source: ChangeSource, echo: AppliedEvent? = nil, origin: OSCEndpoint? = nil) {
        self.change = change
        self.source = source
        self.echo = echo
        self.origin = origin
    }

    /// What subscribers and the web page are told of it: a parameter's value (a number, or a
    /// room name) or the preset recalled. Nil for the engine taking up the state after a rejoin
    /// (no news: it was told when it changed) and for the transport (the player's state is
    /// pushed with the status).
    public var feedbackMessage: OSCMessage? {
        guard source != .rejoin else { return nil }
        switch change {
        case let .parameter(id, value): return ParameterCommands.valueMessage(Parameters[id], value)
        case let .preset(name, _): return OSCMessage(OSCCommandDeclaration.presetRecall.address, [.string(name)])
        case .transport: return nil
        }
    }
}

/// The rack's state on the control side, and its one writer: the targets of every parameter
/// and the preset recalled last. A transport's change becomes engine events (`events(for:at:)`);
/// once they are posted, `commit` makes an immediate change the target; the engine's echoes come
/// back through `absorb`, which makes a scheduled change or a MIDI controller's the target.
/// Both yield the change records every sink (subscribers, the web page, `--record`, the session
/// manager) is derived from.
struct ControlState {
    /// The target of every parameter: what get/dump/presets/the session report.
    private(set) var targets: RackState
    /// The preset recalled last (`/rack/dump`).
    private(set) var preset: String
    /// Preset recalls on their way through the render thread, by marker number.
    private var markers: [Int: (name: String, rampFrames: Int64, origin: OSCEndpoint?)] = [:]
    private var nextMarker = 1
    /// Each parameter's posted values not echoed yet, oldest first, with the endpoint each came
    /// from: an echo's record carries the origin of the value it echoes (changes crossing on
    /// the way are told apart by value). At most `originsHeld` a parameter (the oldest go: their
    /// records then carry no origin).
    private var origins: [ParameterID: [(value: Double, origin: OSCEndpoint?)]] = [:]
    private static let originsHeld = 64

    init(targets: RackState, preset: String) {
        self.targets = targets
        self.preset = preset
    }

    /// What of an immediate `change` changes something, nil when nothing does: a parameter whose
    /// new value is told as its target is told (`isTarget`) is left out; a recall of the preset
    /// recalled last is left out whole when every one of its values is told as the target is.
    /// A change that changes nothing is neither applied again nor told again, so racks
    /// subscribed to each other settle after one exchange: each one's change comes back from the
    /// other as its own value.
    func news(in change: StateChange) -> StateChange? {
        switch change {
        case let .parameters(changes):
            let news = changes.filter { !isTarget($0.id, $0.value) }
            return news.isEmpty ? nil : .parameters(news)
        case let .preset(name, state, _):
            return name == preset && Parameters.all.allSatisfy({ isTarget($0.id, state[$0.id]) }) ? nil : change
        }
    }

    /// Whether `value` is told as `id`'s target is (`ParameterCommands.valueMessage`: a room by name,
    /// a number as a 32-bit float, the precision feedback carries).
    func isTarget(_ id: ParameterID, _ value: Double) -> Bool {
        let spec = Parameters[id]
        return ParameterCommands.valueMessage(spec, value) == ParameterCommands.valueMessage(spec, targets[id])
    }

    /// The engine events that carry `change` to the render thread at `t` (now or an engine
    /// sample). Changes nothing until `commit`.
    func events(for change: StateChange, at t: EventTime) -> [EngineEvent] {
        switch change {
        case let .parameters(changes):
            return changes.map { EngineEvent(t, .set($0.id, $0.value, ramp: $0.ramp)) }
        case let .preset(_, state, rampFrames):
            return [EngineEvent(t, .marker(nextMarker))] + state.events(at: t, ramp: RampLength(frames: rampFrames))
        }
    }

    /// `change`'s events at `t` were posted (`posted`), or no server runs (`!posted`): an
    /// immediate change is the target from now on; a scheduled one becomes the target when its
    /// echo comes back, so get/dump never run ahead of the sound. While no server runs, the
    /// change's records are returned at once (there will be no echo).
    mutating func commit(_ change: StateChange, at t: EventTime, posted: Bool, origin: OSCEndpoint?) -> [ChangeRecord] {
        if posted { remember(change, origin: origin) }
        guard t == .now else { return [] }
        var records: [ChangeRecord] = []
        switch change {
        case let .parameters(changes):
            for c in changes { targets[c.id] = c.value }
            records = changes.map { ChangeRecord(change: .parameter($0.id, $0.value), source: .whileAway, origin: origin) }
        case let .preset(name, state, rampFrames):
            targets = state
            preset = name
            records = [ChangeRecord(change: .preset(name: name, rampFrames: rampFrames), source: .whileAway, origin: origin)]
                + Parameters.all.map { ChangeRecord(change: .parameter($0.id, state[$0.id]), source: .whileAway, origin: origin) }
        }
        return posted ? [] : records
    }

    /// A posted change's marker (a recall) and where each of its values came from, for its echoes.
    private mutating func remember(_ change: StateChange, origin: OSCEndpoint?) {
        func note(_ id: ParameterID, _ value: Double) {
            origins[id, default: []].append((value, origin))
            if origins[id]!.count > Self.originsHeld { origins[id]!.removeFirst() }
        }
        switch change {
        case let .parameters(changes):
            for c in changes { note(c.id, c.value) }
        case let .preset(name, state, rampFrames):
            markers[nextMarker] = (name, rampFrames, origin)
            nextMarker += 1
            for spec in Parameters.all { note(spec.id, state[spec.id]) }
        }
    }

    /// Where the echo of `value` for `id` came from: the oldest posted change of that value
    /// not echoed yet (taken).
    private mutating func origin(of id: ParameterID, _ value: Double) -> OSCEndpoint? {
        guard let i = origins[id]?.firstIndex(where: { $0.value == value }) else { return nil }
        return origins[id]!.remove(at: i).origin
    }

    /// What the engine's echo `e` changed: a scheduled value or a MIDI controller's is the
    /// target now; a preset marker names the recall its parameters belong to.
    mutating func absorb(_ e: AppliedEvent) -> [ChangeRecord] {
        switch e.action {
        case let .marker(id):
            guard let m = markers.removeValue(forKey: id) else { return [] }
            if e.isScheduled { preset = m.name }
            return [ChangeRecord(change: .preset(name: m.name, rampFrames: m.rampFrames), source: .control, echo: e, origin: m.origin)]
        case let .set(id, value, ramp):
            if ramp == .jump { return [ChangeRecord(change: .parameter(id, value), source: .rejoin, echo: e)] }
            if e.isScheduled { targets[id] = value }
            return [ChangeRecord(change: .parameter(id, value), source: .control, echo: e, origin: origin(of: id, value))]
        case let .midiSet(id, value):
            targets[id] = value
            return [ChangeRecord(change: .parameter(id, value), source: .midiController, echo: e)]
        case .play, .stop:
            return [ChangeRecord(change: .transport(playing: e.action == .play), source: .control, echo: e)]
        }
    }

    /// Preset recalls on their way through the render thread.
    var recallsInFlight: Int { markers.count }

    /// The recalls of markers `ids` were dropped before they took effect (their sender's
    /// `/rack/schedule/clear`): they never will.
    mutating func forgetRecalls(_ ids: [Int]) {
        for id in ids { markers[id] = nil }
    }

    /// A new engine: the preset recalls in flight to the old one are forgotten.
    mutating func forgetInFlight() {
        markers.removeAll()
        origins.removeAll()
    }
}
