import RackDSP
import Synchronization

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

/// What an event does.
public enum EngineAction: Sendable, Equatable {
    /// Ramp the parameter to the value (for `room`: crossfade to the room of that index). The
    /// value is already validated and clamped by the control side (`ParameterSpec.clamp`); the
    /// engine trusts it.
    case set(ParameterID, Double, ramp: RampLength)
    /// A bound MIDI controller moved: set the parameter to the value over its default ramp.
    /// Posted by the render thread's MIDI stage (`MIDIRouter`), never by the control side: its
    /// echo tells the control side of a target it did not post.
    case midiSet(ParameterID, Double)
    /// Start the player's transport.
    case play
    /// Stop the player's transport.
    case stop
    /// Play the ring from now on (crossfading from the previous one); nil detaches.
    /// One swap at a time: post the next only after the previous ring came back as
    /// `releasedRing` (the player has one slot for a ring it lets go of; `RackController`
    /// coalesces loads and seeks to honour this).
    case attachPlayer(StereoRing?)
    /// Render → control only: the player let go of the ring; the control thread may free it.
    case releasedRing(StereoRing)
    /// Does nothing but come back through the applied queue at its sample: marks where a
    /// preset recall (the control side's marker id) took effect.
    case marker(Int)
    /// Render → control only (`MIDIRouter.programs`): a MIDI program change (0…127) arrived;
    /// the control thread recalls the preset of that index.
    case programChange(Int)
    /// The driver rejoined a server after an outage: the scheduled events still waiting are
    /// dropped (their timetags were mapped through a clock that stopped), and the `set` events
    /// posted after it (with a `jump` ramp) set the state the control side holds now. Posted
    /// with 0; its echo carries the number of scheduled events dropped.
    case restart(droppedEvents: Int)
    /// Drop the scheduled events waiting that `owner` posted (a sender's `/rack/schedule/clear`):
    /// taken on the immediate path when drained, so every event that owner posted before it is
    /// waiting by then. Posted with 0; its echo carries how many were dropped.
    case clearScheduled(EventOwner, droppedEvents: Int)

    /// True for a `restart`.
    /// - Realtime: safe
    public var isRestart: Bool {
        @_noLocks get {
            if case .restart = self { return true }
            return false
        }
    }

    /// The parameter, value and ramp of a `set` or a `midiSet` (whose ramp is the default);
    /// nil for every other action.
    /// - Realtime: safe
    public var parameterChange: (parameter: ParameterID, value: Double, ramp: RampLength)? {
        @_noLocks get {
            switch self {
            case let .set(id, value, ramp): return (id, value, ramp)
            case let .midiSet(id, value): return (id, value, .standard)
            default: return nil
            }
        }
    }
}

/// Who posted a scheduled event: a control-side sender (an OSC endpoint's address, port and
/// transport), so that the control side counts each sender's share of the scheduled events and
/// a sender can drop its own (`EngineAction.clearScheduled`). Plain data.
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

/// A change for the render thread, placed at an absolute sample position. Plain data: it
/// crosses threads by value through `EventQueue`.
public struct EngineEvent: Sendable, Equatable {
    /// Sample time at which it applies; `EngineEvent.immediately` applies at the start of the
    /// next render call.
    public var sampleTime: Int64
    /// What it does.
    public var action: EngineAction
    /// True for an event placed in the future (a timetagged bundle): the control side counts
    /// it as the current target only once its echo says it was applied. The engine keeps such
    /// events in its bounded pending list; immediate ones never wait there.
    public var isScheduled = false
    /// Who posted it (the control side's scheduled events); nil for the rest.
    public var owner: EventOwner?

    /// The `sampleTime` of an event that applies as soon as possible: at the start of the next
    /// render call, in the order it was posted, never behind a scheduled event.
    /// - Realtime: safe
    public static var immediately: Int64 { @_noLocks @inline(__always) get { Int64.min } }

    /// - Realtime: safe
    @_noLocks
    public init(sampleTime: Int64, _ action: EngineAction) {
        self.sampleTime = sampleTime
        self.action = action
    }
}

/// A lock-free single-producer/single-consumer queue of events, control thread → render thread.
/// The struct is a handle: copies share storage; the owner calls `deallocate()` once.
///
/// - Realtime: `pop` is safe (consumer side).
public struct EventQueue: @unchecked Sendable {
    public let capacity: Int
    private let mask: Int
    private let slots: UnsafeMutablePointer<EngineEvent>
    /// The two free-running counters, by `Counter`.
    private let counters: UnsafeMutablePointer<Atomic<Int>>
    /// Events pushed since the queue was made (producer) and popped (consumer).
    private enum Counter: Int { case written, read }

    public init(minimumCapacity: Int) {
        let c = powerOfTwo(atLeast: minimumCapacity)
        capacity = c
        mask = c - 1
        slots = .allocate(capacity: c)
        slots.initialize(repeating: EngineEvent(sampleTime: 0, .play), count: c)
        counters = .allocate(capacity: 2)
        counters.initialize(to: Atomic(0))
        (counters + Counter.read.rawValue).initialize(to: Atomic(0))
    }

    public func deallocate() {
        slots.deallocate()
        counters.deinitialize(count: 2)
        counters.deallocate()
    }

    /// Producer: appends an event; false when the queue is full (the caller reports it).
    /// - Realtime: safe (the render thread is the producer of the applied-events queue).
    @_noLocks
    public func push(_ event: EngineEvent) -> Bool {
        let w = counters[Counter.written.rawValue].load(ordering: .relaxed)
        if w - counters[Counter.read.rawValue].load(ordering: .acquiring) >= capacity { return false }
        slots[w & mask] = event
        counters[Counter.written.rawValue].store(w + 1, ordering: .releasing)
        return true
    }

    /// Consumer: takes the oldest event, if any.
    /// - Realtime: safe
    @_noLocks
    public func pop() -> EngineEvent? {
        let r = counters[Counter.read.rawValue].load(ordering: .relaxed)
        if r == counters[Counter.written.rawValue].load(ordering: .acquiring) { return nil }
        let e = slots[r & mask]
        counters[Counter.read.rawValue].store(r + 1, ordering: .releasing)
        return e
    }

    /// Events waiting (approximate when called concurrently).
    /// - Realtime: safe
    public var count: Int {
        @_noLocks get { counters[Counter.written.rawValue].load(ordering: .acquiring) - counters[Counter.read.rawValue].load(ordering: .acquiring) }
    }

    /// Events pushed since the queue was made.
    public var pushedCount: Int { counters[Counter.written.rawValue].load(ordering: .acquiring) }

    /// Events popped since the queue was made.
    public var poppedCount: Int { counters[Counter.read.rawValue].load(ordering: .acquiring) }

    /// True when a push would fail now.
    /// - Realtime: safe
    public var isFull: Bool { @_noLocks get { count >= capacity } }
}
