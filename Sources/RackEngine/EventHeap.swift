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
/// (`insertGrowing`). Plain values and pointers, no class references: `EngineCore` owns it
/// and calls `deallocate()` once.
struct EventHeap {
    /// How many events fit.
    private(set) var capacity: Int
    /// Events waiting: heap order over slots 0..<count.
    private var events: UnsafeMutablePointer<EngineEvent>
    /// Arrival number of the event in the same slot (the tie-break for equal sample times).
    private var arrival: UnsafeMutablePointer<UInt64>
    private var nextArrival: UInt64 = 0
    /// Events waiting now.
    private(set) var count = 0
    /// Events dropped because the heap was full.
    private(set) var droppedEvents = 0

    /// Allocates room for `capacity` events. Not realtime.
    init(capacity: Int) {
        self.capacity = capacity
        events = .allocate(capacity: capacity)
        arrival = .allocate(capacity: capacity)
    }

    /// Frees the storage (once, by the owner).
    func deallocate() {
        events.deallocate()
        arrival.deallocate()
    }

    /// The earliest event (the next `pop`), nil when none waits.
    /// - Realtime: safe
    @_noLocks
    func peek() -> EngineEvent? { count > 0 ? events[0] : nil }

    /// Adds an event (after every event already waiting for the same sample); drops it and
    /// counts it in `droppedEvents` when the heap is full.
    /// - Realtime: safe
    @_noLocks
    mutating func insert(_ event: EngineEvent) {
        if count == capacity { droppedEvents &+= 1; return }
        var i = count
        events[i] = event
        arrival[i] = nextArrival
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
    mutating func insertGrowing(_ event: EngineEvent) {
        if count == capacity {
            let bigger = max(1, capacity * 2)
            let e = UnsafeMutablePointer<EngineEvent>.allocate(capacity: bigger)
            let a = UnsafeMutablePointer<UInt64>.allocate(capacity: bigger)
            e.initialize(from: events, count: count)
            a.initialize(from: arrival, count: count)
            events.deallocate()
            arrival.deallocate()
            events = e
            arrival = a
            capacity = bigger
        }
        insert(event)
    }

    /// Forgets every waiting event; returns how many there were.
    /// - Realtime: safe
    @_noLocks
    mutating func removeAll() -> Int {
        let n = count
        count = 0
        return n
    }

    /// Takes the earliest event, nil when none waits.
    /// - Realtime: safe
    @_noLocks
    mutating func pop() -> EngineEvent? {
        guard count > 0 else { return nil }
        let first = events[0]
        count -= 1
        if count > 0 {
            events[0] = events[count]
            arrival[0] = arrival[count]
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
        let ta = events[a].sampleTime, tb = events[b].sampleTime
        return ta < tb || (ta == tb && arrival[a] < arrival[b])
    }

    @_noLocks @inline(__always)
    private mutating func swapAt(_ a: Int, _ b: Int) {
        let e = events[a]; events[a] = events[b]; events[b] = e
        let o = arrival[a]; arrival[a] = arrival[b]; arrival[b] = o
    }
}
