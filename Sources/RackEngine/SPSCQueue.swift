import RackDSP
import Synchronization

/// The two free-running counters of a lock-free single-producer/single-consumer ring, and the
/// rule that orders its slots: the producer writes slot `slotToWrite()` then calls `didWrite`
/// (release); the consumer reads slot `slotToRead()` then calls `didRead`. The queues of plain
/// values that cross threads (`CommandQueue`, `NoticeQueue`, `ProgramQueue`) are this and an
/// array of their element: one ring rule, each queue's slots typed (the realtime checks allow no
/// generic queue). A handle: copies share storage; the owner calls `deallocate()` once.
public struct SPSCCursor: @unchecked Sendable {
    /// Slots in the ring (a power of two).
    public let capacity: Int
    private let mask: Int
    /// The two counters, by `Counter`.
    private let counters: UnsafeMutablePointer<Atomic<Int>>
    /// Values pushed since the ring was made (producer) and popped (consumer).
    private enum Counter: Int { case written, read }

    /// A ring of at least `minimumCapacity` slots. Allocates.
    init(minimumCapacity: Int) {
        capacity = powerOfTwo(atLeast: minimumCapacity)
        mask = capacity - 1
        counters = .allocate(capacity: 2)
        counters.initialize(to: Atomic(0))
        (counters + Counter.read.rawValue).initialize(to: Atomic(0))
    }

    func deallocate() {
        counters.deinitialize(count: 2)
        counters.deallocate()
    }

    /// Producer: the slot to write next, nil when the ring is full.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func slotToWrite() -> Int? {
        let w = counters[Counter.written.rawValue].load(ordering: .relaxed)
        if w - counters[Counter.read.rawValue].load(ordering: .acquiring) >= capacity { return nil }
        return w & mask
    }

    /// Producer: the slot `slotToWrite` gave is written; the consumer may read it.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func didWrite() {
        let w = counters[Counter.written.rawValue].load(ordering: .relaxed)
        counters[Counter.written.rawValue].store(w + 1, ordering: .releasing)
    }

    /// Consumer: the slot to read next, nil when the ring is empty.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func slotToRead() -> Int? {
        let r = counters[Counter.read.rawValue].load(ordering: .relaxed)
        if r == counters[Counter.written.rawValue].load(ordering: .acquiring) { return nil }
        return r & mask
    }

    /// Consumer: the slot `slotToRead` gave is read; the producer may write it again.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func didRead() {
        let r = counters[Counter.read.rawValue].load(ordering: .relaxed)
        counters[Counter.read.rawValue].store(r + 1, ordering: .releasing)
    }

    /// Values waiting (approximate when called concurrently).
    /// - Realtime: safe
    public var count: Int {
        @_noLocks get { counters[Counter.written.rawValue].load(ordering: .acquiring) - counters[Counter.read.rawValue].load(ordering: .acquiring) }
    }

    /// Values pushed since the ring was made.
    public var pushedCount: Int { counters[Counter.written.rawValue].load(ordering: .acquiring) }

    /// Values popped since the ring was made.
    public var poppedCount: Int { counters[Counter.read.rawValue].load(ordering: .acquiring) }

    /// True when a push would fail now.
    /// - Realtime: safe
    public var isFull: Bool { @_noLocks get { count >= capacity } }
}

/// Control thread → render thread: the commands the control side posts (`Engine.post`); also
/// the render thread's own stages' submissions (`EngineCore.submit`).
/// - Realtime: `push` and `pop` are safe.
public struct CommandQueue: @unchecked Sendable {
    public let cursor: SPSCCursor
    private let slots: UnsafeMutablePointer<EngineCommand>

    /// Room for at least `minimumCapacity` commands. Allocates.
    public init(minimumCapacity: Int) {
        cursor = SPSCCursor(minimumCapacity: minimumCapacity)
        slots = .allocate(capacity: cursor.capacity)
        slots.initialize(repeating: .restart, count: cursor.capacity)
    }

    public func deallocate() {
        slots.deinitialize(count: cursor.capacity)
        slots.deallocate()
        cursor.deallocate()
    }

    /// Producer: appends a command; false when the queue is full (the caller reports it).
    /// - Realtime: safe
    @_noLocks
    public func push(_ c: EngineCommand) -> Bool {
        guard let i = cursor.slotToWrite() else { return false }
        slots[i] = c
        cursor.didWrite()
        return true
    }

    /// Consumer: takes the oldest command, if any.
    /// - Realtime: safe
    @_noLocks
    public func pop() -> EngineCommand? {
        guard let i = cursor.slotToRead() else { return nil }
        let c = slots[i]
        cursor.didRead()
        return c
    }
}

/// Render thread → control thread: what the engine tells the control side (`EngineNotice`).
/// - Realtime: `push` and `pop` are safe.
public struct NoticeQueue: @unchecked Sendable {
    public let cursor: SPSCCursor
    private let slots: UnsafeMutablePointer<EngineNotice>

    /// Room for at least `minimumCapacity` notices. Allocates.
    public init(minimumCapacity: Int) {
        cursor = SPSCCursor(minimumCapacity: minimumCapacity)
        slots = .allocate(capacity: cursor.capacity)
        slots.initialize(repeating: .restarted(droppedEvents: 0), count: cursor.capacity)
    }

    public func deallocate() {
        slots.deinitialize(count: cursor.capacity)
        slots.deallocate()
        cursor.deallocate()
    }

    /// Producer: appends a notice; false when the queue is full (the caller counts it).
    /// - Realtime: safe
    @_noLocks
    public func push(_ n: EngineNotice) -> Bool {
        guard let i = cursor.slotToWrite() else { return false }
        slots[i] = n
        cursor.didWrite()
        return true
    }

    /// Consumer: takes the oldest notice, if any.
    /// - Realtime: safe
    @_noLocks
    public func pop() -> EngineNotice? {
        guard let i = cursor.slotToRead() else { return nil }
        let n = slots[i]
        cursor.didRead()
        return n
    }
}

/// Render thread → control thread: the MIDI program changes the MIDI stage received (program
/// numbers 0…127).
/// - Realtime: `push` is safe.
public struct ProgramQueue: @unchecked Sendable {
    public let cursor: SPSCCursor
    private let slots: UnsafeMutablePointer<Int>

    /// Room for at least `minimumCapacity` program numbers. Allocates.
    public init(minimumCapacity: Int) {
        cursor = SPSCCursor(minimumCapacity: minimumCapacity)
        slots = .allocate(capacity: cursor.capacity)
        slots.initialize(repeating: 0, count: cursor.capacity)
    }

    public func deallocate() {
        slots.deallocate()
        cursor.deallocate()
    }

    /// Producer: appends a program number; false when the queue is full (the caller counts it).
    /// - Realtime: safe
    @_noLocks
    public func push(_ program: Int) -> Bool {
        guard let i = cursor.slotToWrite() else { return false }
        slots[i] = program
        cursor.didWrite()
        return true
    }

    /// Consumer: takes the oldest program number, if any.
    public func pop() -> Int? {
        guard let i = cursor.slotToRead() else { return nil }
        let p = slots[i]
        cursor.didRead()
        return p
    }
}
