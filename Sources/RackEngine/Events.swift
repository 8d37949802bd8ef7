import RackDSP
import Synchronization

/// What an event does.
public enum EventKind: UInt8, Sendable {
    /// Ramp `parameter` to `value` (for `room`: crossfade to room index `value`).
    case parameter
    /// Start the player's transport.
    case play
    /// Stop the player's transport.
    case stop
    /// Play `ring` from now on (crossfading from the previous one); nil detaches.
    /// One swap at a time: post the next only after the previous ring came back as
    /// `releasedRing` (the player has one slot for a ring it lets go of; `RackController`
    /// coalesces loads and seeks to honour this).
    case attachPlayer
    /// Render → control only: the player let go of `ring`; the control thread may free it.
    case releasedRing
    /// Does nothing but come back through the applied queue at its sample: marks where a
    /// preset recall (`value` = the control side's marker id) took effect.
    case marker
    /// The driver rejoined a server after an outage: the scheduled events still waiting are
    /// dropped (their timetags were mapped through a clock that stopped), and the parameter
    /// events posted after it (with `rampFrames == EngineEvent.jump`) set the state the control
    /// side holds now. Its echo carries the number of scheduled events dropped in `value`.
    case restart
}

/// A change for the render thread, placed at an absolute sample position. Plain data: it
/// crosses threads by value through `EventQueue`.
public struct EngineEvent: Sendable, Equatable {
    /// Sample time at which it applies; `EngineEvent.immediately` applies at the start of the
    /// next render call.
    public var sampleTime: Int64
    public var kind: EventKind
    public var parameter: ParameterID
    /// Target value, already validated and clamped by the control side.
    public var value: Double
    /// Ramp length in frames; 0 means the parameter's default ramp, `EngineEvent.jump` no ramp
    /// at all (only after a `restart`: the engine takes up the state it missed while no server ran).
    public var rampFrames: Int64
    /// The ring of `attachPlayer` and `releasedRing`.
    public var ring: StereoRing?
    /// True for an event placed in the future (a timetagged bundle): the control side counts
    /// it as the current target only once its echo says it was applied. The engine keeps such
    /// events in its bounded pending list; immediate ones never wait there.
    public var isScheduled = false

    /// The `sampleTime` of an event that applies as soon as possible: at the start of the next
    /// render call, in the order it was posted, never behind a scheduled event.
    /// - Realtime: safe
    public static var immediately: Int64 { @_noLocks @inline(__always) get { Int64.min } }

    /// The `rampFrames` of a change that takes effect without a ramp (see `restart`).
    /// - Realtime: safe
    public static var jump: Int64 { @_noLocks @inline(__always) get { -1 } }

    /// - Realtime: safe
    @_noLocks
    public init(sampleTime: Int64, kind: EventKind = .parameter, parameter: ParameterID = .cutoff,
                value: Double = 0, rampFrames: Int64 = 0, ring: StereoRing? = nil) {
        self.sampleTime = sampleTime
        self.kind = kind
        self.parameter = parameter
        self.value = value
        self.rampFrames = rampFrames
        self.ring = ring
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
    /// [0] = write counter, [1] = read counter.
    private let counters: UnsafeMutablePointer<Atomic<Int>>

    public init(minimumCapacity: Int) {
        let c = powerOfTwo(atLeast: minimumCapacity)
        capacity = c
        mask = c - 1
        slots = .allocate(capacity: c)
        slots.initialize(repeating: EngineEvent(sampleTime: 0), count: c)
        counters = .allocate(capacity: 2)
        counters.initialize(to: Atomic(0))
        (counters + 1).initialize(to: Atomic(0))
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
        let w = counters[0].load(ordering: .relaxed)
        if w - counters[1].load(ordering: .acquiring) >= capacity { return false }
        slots[w & mask] = event
        counters[0].store(w + 1, ordering: .releasing)
        return true
    }

    /// Consumer: takes the oldest event, if any.
    /// - Realtime: safe
    @_noLocks
    public func pop() -> EngineEvent? {
        let r = counters[1].load(ordering: .relaxed)
        if r == counters[0].load(ordering: .acquiring) { return nil }
        let e = slots[r & mask]
        counters[1].store(r + 1, ordering: .releasing)
        return e
    }

    /// Events waiting (approximate when called concurrently).
    /// - Realtime: safe
    public var count: Int {
        @_noLocks get { counters[0].load(ordering: .acquiring) - counters[1].load(ordering: .acquiring) }
    }

    /// True when a push would fail now.
    /// - Realtime: safe
    public var isFull: Bool { @_noLocks get { count >= capacity } }
}
