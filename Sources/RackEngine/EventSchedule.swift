import RackDSP

/// The render thread's commands once drained from their queues, on two paths so that an
/// immediate change never waits behind scheduled ones:
///
/// - immediate commands (an event at `EventTime.now`, a player's ring, a restart, a sender's
///   clear) go to a first-in-first-out list and are all applied at the start of the block that
///   drained them, in the order they were posted;
/// - scheduled events (a sample time) go to the time-ordered `EventHeap`, whose capacity the
///   control side never exceeds (it counts what it scheduled and has not yet seen applied).
///
/// `next(dueAt:)` gives the immediate commands first, then the heap's events. A `restart`
/// empties the heap when it is drained (the scheduled events before it were mapped through a
/// clock that stopped) and takes the immediate path itself, so its notice says, in order, how
/// many were dropped; a `clearScheduled` does the same for the events its owner posted.
///
/// Storage is allocated in `init`; noncopyable: `EngineCore` holds the one instance, and its
/// storage goes with it.
struct EventSchedule: ~Copyable {
    /// A command whose time has come, as the engine applies it.
    enum Due {
        case event(EngineEvent)
        case attachPlayer(StereoRing?)
        /// A restart, and the scheduled events it dropped when it was drained.
        case restart(droppedEvents: Int)
        /// A sender's clear, and how many of its scheduled events it dropped when drained.
        case clearScheduled(EventOwner, droppedEvents: Int)
    }

    /// Scheduled events, by (sample time, arrival).
    private(set) var scheduled: EventHeap
    /// Immediate commands: a ring of `immediateCapacity` slots, `immediateCount` from `head`.
    private let immediate: UniqueBuffer<Due>
    /// Slots in `immediate` (at least 1).
    var immediateCapacity: Int { @_noLocks get { immediate.count } }
    private var head = 0
    private var immediateCount = 0
    /// Immediate commands that found the list full. The list holds twice the control queue's
    /// capacity and is emptied at the start of every block, so this stays 0; it is counted
    /// (with the heap's drops, in `droppedEvents`) rather than assumed.
    private(set) var droppedImmediate = 0

    /// Room for `scheduledCapacity` scheduled and `immediateCapacity` immediate events.
    /// Allocates: not realtime.
    init(scheduledCapacity: Int, immediateCapacity: Int) {
        scheduled = EventHeap(capacity: scheduledCapacity)
        immediate = UniqueBuffer(repeating: Due.restart(droppedEvents: 0), count: max(1, immediateCapacity))
    }

    /// Events dropped because a list was full (0 on the live path; see the type's notes).
    /// - Realtime: safe
    var droppedEvents: Int { @_noLocks get { scheduled.droppedEvents &+ droppedImmediate } }

    /// Scheduled events waiting.
    /// - Realtime: safe
    var scheduledCount: Int { @_noLocks get { scheduled.count } }

    /// Takes a command drained from its queue onto its path.
    /// - Realtime: safe
    @_noLocks
    mutating func insert(_ command: EngineCommand) {
        switch command {
        case let .event(e): insert(e)
        case let .attachPlayer(ring): pushImmediate(.attachPlayer(ring))
        case .restart: pushImmediate(.restart(droppedEvents: scheduled.removeAll()))
        case let .clearScheduled(owner):
            pushImmediate(.clearScheduled(owner, droppedEvents: scheduled.removeAll(ownedBy: owner)))
        }
    }

    /// Takes an event onto its path: the immediate list or the heap.
    /// - Realtime: safe
    @_noLocks
    mutating func insert(_ event: EngineEvent) {
        switch event.time {
        case .now: pushImmediate(.event(event))
        case let .at(sample): scheduled.insert(event, at: sample)
        }
    }

    /// The offline driver's insert (its own thread, between render calls): a scheduled event
    /// never finds the heap full, it grows. Allocates: not realtime.
    mutating func insertGrowing(_ event: EngineEvent) {
        switch event.time {
        case .now: pushImmediate(.event(event))
        case let .at(sample): scheduled.insertGrowing(event, at: sample)
        }
    }

    /// Takes the next command due at sample `t`, nil when none is: the oldest immediate one,
    /// else the earliest scheduled event if its time has come (a late one is due at once).
    /// - Realtime: safe
    @_noLocks
    mutating func next(dueAt t: Int64) -> Due? {
        if immediateCount > 0 {
            let due = immediate.base[head]
            head = head + 1 == immediateCapacity ? 0 : head + 1
            immediateCount -= 1
            return due
        }
        guard let sample = scheduled.peekSample(), sample <= t, let e = scheduled.pop() else { return nil }
        return .event(e)
    }

    /// - Realtime: safe
    @_noLocks
    private mutating func pushImmediate(_ e: Due) {
        guard immediateCount < immediateCapacity else { droppedImmediate &+= 1; return }
        var slot = head + immediateCount
        if slot >= immediateCapacity { slot -= immediateCapacity }
        immediate.base[slot] = e
        immediateCount += 1
    }
}
