import RackDSP

/// The render thread's events once drained from the control thread's queue, on two paths so
/// that an immediate change never waits behind scheduled ones:
///
/// - immediate events (`EngineEvent.immediately`) go to a first-in-first-out list and are all
///   applied at the start of the block that drained them, in the order they were posted;
/// - scheduled events (a sample time) go to the time-ordered `EventHeap`, whose capacity the
///   control side never exceeds (it counts what it scheduled and has not yet seen applied).
///
/// `peek`/`pop` give the immediate events first (their time, `Int64.min`, is before any
/// sample), then the heap's. A `restart` event empties the heap when it is drained (the
/// scheduled events before it were mapped through a clock that stopped) and takes the
/// immediate path itself, so its echo says, in order, how many were dropped.
///
/// Storage is allocated in `init`; noncopyable: `EngineCore` holds the one instance, and its
/// storage goes with it.
struct EventSchedule: ~Copyable {
    /// Scheduled events, by (sample time, arrival).
    private(set) var scheduled: EventHeap
    /// Immediate events: a ring of `immediateCapacity` slots, `immediateCount` from `head`.
    private let immediate: UniqueBuffer<EngineEvent>
    /// Slots in `immediate` (at least 1).
    var immediateCapacity: Int { @_noLocks get { immediate.count } }
    private var head = 0
    private var immediateCount = 0
    /// Immediate events that found the list full. The list holds twice the control queue's
    /// capacity and is emptied at the start of every block, so this stays 0; it is counted
    /// (with the heap's drops, in `droppedEvents`) rather than assumed.
    private(set) var droppedImmediate = 0

    /// Room for `scheduledCapacity` scheduled and `immediateCapacity` immediate events.
    /// Allocates: not realtime.
    init(scheduledCapacity: Int, immediateCapacity: Int) {
        scheduled = EventHeap(capacity: scheduledCapacity)
        immediate = UniqueBuffer(repeating: EngineEvent(sampleTime: 0, .play), count: max(1, immediateCapacity))
    }

    /// Events dropped because a list was full (0 on the live path; see the type's notes).
    /// - Realtime: safe
    var droppedEvents: Int { @_noLocks get { scheduled.droppedEvents &+ droppedImmediate } }

    /// Scheduled events waiting.
    /// - Realtime: safe
    var scheduledCount: Int { @_noLocks get { scheduled.count } }

    /// Takes an event drained from the control queue onto its path.
    /// - Realtime: safe
    @_noLocks
    mutating func insert(_ event: EngineEvent) {
        switch event.action {
        case .restart:
            var e = event
            e.action = .restart(droppedEvents: scheduled.removeAll())
            pushImmediate(e)
        case let .clearScheduled(owner, _):
            var e = event
            e.action = .clearScheduled(owner, droppedEvents: scheduled.removeAll(ownedBy: owner))
            pushImmediate(e)
        default:
            if event.sampleTime == EngineEvent.immediately {
                pushImmediate(event)
            } else {
                scheduled.insert(event)
            }
        }
    }

    /// The offline driver's insert (its own thread, between render calls): a scheduled event
    /// never finds the heap full, it grows. Allocates: not realtime.
    mutating func insertGrowing(_ event: EngineEvent) {
        if event.sampleTime == EngineEvent.immediately || event.action.isRestart {
            insert(event)
        } else {
            scheduled.insertGrowing(event)
        }
    }

    /// The next event `pop` gives: the oldest immediate one, else the earliest scheduled one.
    /// - Realtime: safe
    @_noLocks
    func peek() -> EngineEvent? { immediateCount > 0 ? immediate.base[head] : scheduled.peek() }

    /// Takes the next event (see `peek`), nil when none waits.
    /// - Realtime: safe
    @_noLocks
    mutating func pop() -> EngineEvent? {
        if immediateCount > 0 {
            let e = immediate.base[head]
            head = head + 1 == immediateCapacity ? 0 : head + 1
            immediateCount -= 1
            return e
        }
        return scheduled.pop()
    }

    /// - Realtime: safe
    @_noLocks
    private mutating func pushImmediate(_ e: EngineEvent) {
        guard immediateCount < immediateCapacity else { droppedImmediate &+= 1; return }
        var slot = head + immediateCount
        if slot >= immediateCapacity { slot -= immediateCapacity }
        immediate.base[slot] = e
        immediateCount += 1
    }
}
