import RackDSP

/// How long a parameter change takes to arrive at its value.
public enum RampLength: Sendable, Equatable {
    /// The parameter's default ramp (`ParameterSpec.defaultRampSeconds`; for `room`, its
    /// crossfade), capped at its longest.
    case standard
    /// This many frames (more than 0), capped at the parameter's longest ramp
    /// (`ParameterSpec.maximumRampSeconds`: `room`'s crossfade is shorter than any other ramp).
    case frames(Int64)
    /// No ramp at all: only after a `restart` (the engine takes up the state it missed while
    /// no server ran).
    case jump

    /// A ramp the control side measured in frames: 0 (none given) is the default ramp.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    public init(frames: Int64) {
        self = frames > 0 ? .frames(frames) : .standard
    }

    /// The frames a user gave, as an automation file or a recording writes them back: nil for
    /// the default ramp and for a jump (neither says a time).
    public var givenFrames: Int64? {
        if case let .frames(n) = self { return n }
        return nil
    }

    /// The ramp's length in frames for a parameter whose default and longest ramps are
    /// `limits` (in frames at the same rate; see `ParameterSpec.rampLimits(sampleRate:)`):
    /// the one rule by which a ramp or a room crossfade is shortened to its cap.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    public func resolvedFrames(_ limits: RampLimits) -> Int64 {
        switch self {
        case .jump: return 0
        case .standard: return min(limits.defaultFrames, limits.maximumFrames)
        case let .frames(n): return min(n, limits.maximumFrames)
        }
    }
}

/// A parameter's default and longest ramp in frames at one sample rate.
public struct RampLimits: Sendable, Equatable {
    public var defaultFrames: Int64
    public var maximumFrames: Int64

    public init(defaultFrames: Int64, maximumFrames: Int64) {
        self.defaultFrames = defaultFrames
        self.maximumFrames = maximumFrames
    }
}

/// What an event does: a change the render thread applies at the event's sample and tells the
/// control thread of (`EngineNotice.applied`).
public enum EngineAction: Sendable, Equatable {
    /// Ramp the parameter to the value (for `room`: crossfade to the room of that index). The
    /// value is already validated and clamped by the control side (`ParameterSpec.clamp`); the
    /// engine trusts it.
    case set(ParameterID, Double, ramp: RampLength)
    /// A bound MIDI controller moved: set the parameter to the value over its default ramp.
    /// Submitted by the render thread's MIDI stage (`MIDIRouter`), never by the control side:
    /// its notice tells the control side of a target it did not post.
    case midiSet(ParameterID, Double)
    /// Start the player's transport.
    case play
    /// Stop the player's transport.
    case stop
    /// Does nothing but come back as a notice at its sample: marks where a preset recall (the
    /// control side's marker id) took effect.
    case marker(Int)

    /// The parameter, value and ramp of a `set` or a `midiSet` (whose ramp is the default);
    /// nil for the transport and a marker.
    /// - Realtime: safe
    public var parameterChange: (parameter: ParameterID, value: Double, ramp: RampLength)? {
        @_noLocks get {
            switch self {
            case let .set(id, value, ramp): return (id, value, ramp)
            case let .midiSet(id, value): return (id, value, .standard)
            case .play, .stop, .marker: return nil
            }
        }
    }
}

/// When an event applies.
public enum EventTime: Sendable, Equatable {
    /// As soon as possible: at the start of the next render call, in the order it was posted,
    /// never behind a scheduled event.
    case now
    /// At this absolute sample (a late one applies at once).
    case at(Int64)

    /// The sample of `at`; nil for `now`.
    public var sample: Int64? {
        if case let .at(s) = self { return s }
        return nil
    }

    /// Whether an event at this time is due at sample `t`.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    public func isDue(at t: Int64) -> Bool {
        switch self {
        case .now: return true
        case let .at(s): return s <= t
        }
    }
}

/// Who posted a scheduled event: a control-side sender (an OSC endpoint's address, port and
/// transport), so that the control side counts each sender's share of the scheduled events and
/// a sender can drop its own (`EngineCommand.clearScheduled`). Plain data.
public struct EventOwner: Sendable, Hashable {
    /// IPv4 address, network byte order (as `OSCEndpoint.address`): shares are per address.
    public var address: UInt32
    /// Port, host byte order.
    public var port: UInt16
    /// The sender is a WebSocket, not UDP (the same address and port are another sender).
    public var isWebSocket: Bool

    public init(address: UInt32, port: UInt16, isWebSocket: Bool) {
        self.address = address
        self.port = port
        self.isWebSocket = isWebSocket
    }

    /// Whether `e` was posted by this owner (`==` without the generic witness of `Optional`).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    public func posted(_ e: EngineEvent) -> Bool {
        guard let o = e.owner else { return false }
        return o.address == address && o.port == port && o.isWebSocket == isWebSocket
    }
}

/// A change for the render thread, now or at an absolute sample position. Plain data: it
/// crosses threads by value through `CommandQueue`.
public struct EngineEvent: Sendable, Equatable {
    /// When it applies.
    public var time: EventTime
    /// What it does.
    public var action: EngineAction
    /// True for an event placed in the future (a timetagged bundle): the control side counts
    /// it as the current target only once its notice says it was applied. The engine keeps such
    /// events in its bounded pending list; immediate ones never wait there.
    public var isScheduled = false
    /// Who posted it (the control side's scheduled events); nil for the rest.
    public var owner: EventOwner?

    /// - Realtime: safe
    @_noLocks
    public init(_ time: EventTime, _ action: EngineAction) {
        self.time = time
        self.action = action
    }

    /// An event at absolute sample `sampleTime`.
    /// - Realtime: safe
    @_noLocks
    public init(sampleTime: Int64, _ action: EngineAction) {
        self.init(.at(sampleTime), action)
    }
}

/// An event as the engine applied it: what it did, the sample it took effect at, whether the
/// control side had scheduled it (`EngineEvent.isScheduled`) and who posted it.
public struct AppliedEvent: Sendable, Equatable {
    public var action: EngineAction
    /// The absolute sample it took effect at.
    public var sampleTime: Int64
    public var isScheduled: Bool
    /// Who posted it (`EngineEvent.owner`): the control side gives its share back.
    public var owner: EventOwner?

    /// - Realtime: safe
    @_noLocks
    public init(_ action: EngineAction, sampleTime: Int64, isScheduled: Bool = false, owner: EventOwner? = nil) {
        self.action = action
        self.sampleTime = sampleTime
        self.isScheduled = isScheduled
        self.owner = owner
    }
}

/// What the control thread hands the render thread, in the order it posts them (`Engine.post`).
public enum EngineCommand: Sendable, Equatable {
    /// A change at its time.
    case event(EngineEvent)
    /// Play the ring from now on (crossfading from the previous one); nil detaches. Applied at
    /// the start of the next render call, in the order posted. One swap at a time: post the
    /// next only after the previous ring came back as `EngineNotice.releasedRing` (the player
    /// has one slot for a ring it lets go of; `RackController` coalesces loads and seeks to
    /// honour this).
    case attachPlayer(StereoRing?)
    /// The driver rejoined a server after an outage: the scheduled events still waiting are
    /// dropped (their timetags were mapped through a clock that stopped), and the `set` events
    /// posted after it (with a `jump` ramp) set the state the control side holds now. Applied
    /// at the start of the next render call, in the order posted; told back as
    /// `EngineNotice.restarted`.
    case restart
    /// Drop the scheduled events waiting that `owner` posted (a sender's `/rack/schedule/clear`):
    /// applied at the start of the next render call, in the order posted, so every event that
    /// owner posted before it is waiting by then; told back as `EngineNotice.clearedScheduled`.
    case clearScheduled(EventOwner)
}

/// What the render thread tells the control thread, in the order it happened.
public enum EngineNotice: Sendable, Equatable {
    /// An event took effect.
    case applied(AppliedEvent)
    /// A `restart` took effect, dropping this many scheduled events.
    case restarted(droppedEvents: Int)
    /// A `clearScheduled` took effect, dropping this many of the owner's scheduled events.
    case clearedScheduled(EventOwner, droppedEvents: Int)
    /// The player let go of the ring: the control thread may free it.
    case releasedRing(StereoRing)
}
