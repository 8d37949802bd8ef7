import RackDSP

/// Events waiting for their sample on the render thread: a binary min-heap ordered by
/// (sample time, arrival order), so that inserting or taking one costs O(log n) however many
/// far-future events wait, and events for the same sample come out in the order they went in
/// (the idea of swift-nio's `PriorityQueue` under `EmbeddedEventLoop`).
///
/// Only scheduled events wait here (immediate ones are applied as they are drained). Storage
/// is allocated once in `init`; the control side never has more scheduled events in flight
/// than `capacity` (`RackController` counts them and refuses the rest with `/rack/error`), so
/// on the live path the heap never fills. Should it fill anyway, the new event is dropped and
/// counted in `droppedEvents` (published as `EngineMonitor.Counter.droppedEvents`). The
/// offline driver, which schedules from its own thread between render calls, grows it instead
/// (`insertGrowing`). Plain values and owned buffers, no class references; noncopyable:
/// `EngineCore` holds the one instance, and its storage goes with it.
struct EventHeap: ~Copyable {
    /// How many events fit.
    var capacity: Int { @_noLocks get { events.count } }
    /// Events waiting: heap order over slots 0..<count.
    private var events: UniqueBuffer<EngineEvent>
    /// The sample time of the event in the same slot.
    private var samples: UniqueBuffer<Int64>
    /// Arrival number of the event in the same slot (the tie-break for equal sample times).
    private var arrival: UniqueBuffer<UInt64>
    private var nextArrival: UInt64 = 0
    /// Events waiting now.
    private(set) var count = 0
    /// Events dropped because the heap was full.
    private(set) var droppedEvents = 0

    /// Allocates room for `capacity` events. Not realtime.
    init(capacity: Int) {
        events = UniqueBuffer(repeating: Self.emptySlot, count: capacity)
        samples = UniqueBuffer(repeating: 0, count: capacity)
        arrival = UniqueBuffer(repeating: 0, count: capacity)
    }

    /// What a slot holds before an event is put in it (never read).
    private static var emptySlot: EngineEvent { EngineEvent(sampleTime: 0, .play) }

    /// The earliest event (the next `pop`), nil when none waits.
    /// - Realtime: safe
    @_noLocks
    func peek() -> EngineEvent? { count > 0 ? events.base[0] : nil }

    /// The sample time of the earliest event, nil when none waits.
    /// - Realtime: safe
    @_noLocks
    func peekSample() -> Int64? { count > 0 ? samples.base[0] : nil }

    /// Adds an event at sample `sample` (after every event already waiting for the same
    /// sample); drops it and counts it in `droppedEvents` when the heap is full.
    /// - Realtime: safe
    @_noLocks
    mutating func insert(_ event: EngineEvent, at sample: Int64) {
        if count == capacity { droppedEvents &+= 1; return }
        var i = count
        events.base[i] = event
        samples.base[i] = sample
        arrival.base[i] = nextArrival
        nextArrival &+= 1
        count += 1
        while i > 0 {
            let parent = (i - 1) / 2
            if !comesBefore(i, parent) { break }
            swapAt(i, parent)
            i = parent
        }
    }

    /// Adds an event, doubling the storage first when it is full. Allocates: not realtime
    /// (the offline driver's path, between render calls).
    mutating func insertGrowing(_ event: EngineEvent, at sample: Int64) {
        if count == capacity {
            let bigger = max(1, capacity * 2), waiting = count
            let grownEvents = UniqueBuffer(count: bigger) { i in i < waiting ? events.base[i] : Self.emptySlot }
            let grownSamples = UniqueBuffer(count: bigger) { i in i < waiting ? samples.base[i] : 0 }
            let grownArrival = UniqueBuffer(count: bigger) { i in i < waiting ? arrival.base[i] : 0 }
            // The old buffers are freed as the new ones take their place.
            events = grownEvents
            samples = grownSamples
            arrival = grownArrival
        }
        insert(event, at: sample)
    }

    /// Forgets every waiting event; returns how many there were.
    /// - Realtime: safe
    @_noLocks
    mutating func removeAll() -> Int {
        let n = count
        count = 0
        return n
    }

    /// Forgets the waiting events `owner` posted, keeping the others in their order; returns
    /// how many were forgotten. O(n): the others are moved down and the heap rebuilt.
    /// - Realtime: safe
    @_noLocks
    mutating func removeAll(ownedBy owner: EventOwner) -> Int {
        var kept = 0
        for i in 0..<count where !owner.posted(events.base[i]) {
            events.base[kept] = events.base[i]
            samples.base[kept] = samples.base[i]
            arrival.base[kept] = arrival.base[i]
            kept += 1
        }
        let removed = count - kept
        count = kept
        var i = count / 2
        while i > 0 {
            i -= 1
            siftDown(from: i)
        }
        return removed
    }

    /// Takes the earliest event, nil when none waits.
    /// - Realtime: safe
    @_noLocks
    mutating func pop() -> EngineEvent? {
        guard count > 0 else { return nil }
        let first = events.base[0]
        count -= 1
        if count > 0 {
            events.base[0] = events.base[count]
            samples.base[0] = samples.base[count]
            arrival.base[0] = arrival.base[count]
            siftDown(from: 0)
        }
        return first
    }

    /// Restores heap order below slot `i` after its event was replaced.
    @_noLocks
    private mutating func siftDown(from start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < count && comesBefore(l, m) { m = l }
            if r < count && comesBefore(r, m) { m = r }
            if m == i { break }
            swapAt(i, m)
            i = m
        }
    }

    /// True when the event in slot `a` comes before the one in slot `b`.
    @_noLocks @inline(__always)
    private func comesBefore(_ a: Int, _ b: Int) -> Bool {
        let ta = samples.base[a], tb = samples.base[b]
        return ta < tb || (ta == tb && arrival.base[a] < arrival.base[b])
    }

    @_noLocks @inline(__always)
    private mutating func swapAt(_ a: Int, _ b: Int) {
        let e = events.base[a]; events.base[a] = events.base[b]; events.base[b] = e
        let s = samples.base[a]; samples.base[a] = samples.base[b]; samples.base[b] = s
        let o = arrival.base[a]; arrival.base[a] = arrival.base[b]; arrival.base[b] = o
    }
}
