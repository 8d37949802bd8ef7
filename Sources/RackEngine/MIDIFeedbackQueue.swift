import Synchronization

/// MIDI feedback on its way out: a lock-free single-producer/single-consumer ring of 3-byte
/// control changes, control thread (the MIDI feedback sink of the change stream) → render
/// thread (the MIDI stage, which writes them to `midi_out`).
///
/// Full: the message being pushed is dropped and counted (`dropped`); the messages waiting keep
/// their order and all go out. The capacity (`capacity`, 1,024 messages) is 16 cycles' worth
/// of the output's 64 messages a cycle, far above the control side's largest burst (a preset
/// recall sends one CC per bound controller, at most 128).
///
/// Plain pointers: the owner (`MIDIRouter`, owned by `MIDILink`) calls `deallocate()` once.
/// - Realtime: `drain` is safe (consumer side).
public struct MIDIFeedbackQueue: @unchecked Sendable {
    /// Messages the ring holds.
    public static let capacity = 1_024
    private static let mask = capacity - 1
    /// One message a word: status | data1 << 8 | data2 << 16.
    private let words: UnsafeMutablePointer<UInt32>
    /// The two free-running counters, by `Counter`.
    private let counters: UnsafeMutablePointer<Atomic<Int>>
    /// Messages pushed since the queue was made (producer) and drained (consumer).
    private enum Counter: Int, CaseIterable { case written, read }
    /// Messages dropped because the ring was full (producer only).
    private let droppedCount: UnsafeMutablePointer<Int>

    /// An empty ring. Allocates.
    public init() {
        words = .allocate(capacity: Self.capacity)
        words.initialize(repeating: 0, count: Self.capacity)
        counters = .allocate(capacity: Counter.allCases.count)
        for c in Counter.allCases { (counters + c.rawValue).initialize(to: Atomic(0)) }
        droppedCount = .allocate(capacity: 1)
        droppedCount.initialize(to: 0)
    }

    /// Frees the ring (the owner, once; no thread may use it after).
    public func deallocate() {
        words.deallocate()
        counters.deinitialize(count: Counter.allCases.count)
        counters.deallocate()
        droppedCount.deallocate()
    }

    /// Producer: appends the control change `controller` = `value` on `channel` (1…16); when the
    /// ring is full the message is dropped and counted, and false is returned.
    @discardableResult
    public func push(channel: Int, controller: Int, value: UInt8) -> Bool {
        let written = counters[Counter.written.rawValue].load(ordering: .relaxed)
        if written - counters[Counter.read.rawValue].load(ordering: .acquiring) >= Self.capacity {
            droppedCount.pointee += 1
            return false
        }
        let status = UInt32(0xB0 | ((channel - 1) & 0x0F))
        words[written & Self.mask] = status | UInt32(controller & 0x7F) << 8 | UInt32(value & 0x7F) << 16
        counters[Counter.written.rawValue].store(written + 1, ordering: .releasing)
        return true
    }

    /// Consumer: moves the oldest waiting messages, at most `capacity`, into `out` (3 bytes
    /// each); the rest wait, in order, for the next call. Returns how many it moved.
    /// - Realtime: safe
    @_noLocks
    public func drain(into out: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        let read = counters[Counter.read.rawValue].load(ordering: .relaxed)
        let waiting = counters[Counter.written.rawValue].load(ordering: .acquiring) - read
        let taken = min(waiting, max(capacity, 0))
        for i in 0..<taken {
            let word = words[(read + i) & Self.mask]
            out[3 * i] = UInt8(truncatingIfNeeded: word)
            out[3 * i + 1] = UInt8(truncatingIfNeeded: word >> 8)
            out[3 * i + 2] = UInt8(truncatingIfNeeded: word >> 16)
        }
        counters[Counter.read.rawValue].store(read + taken, ordering: .releasing)
        return taken
    }

    /// Messages waiting (approximate when called concurrently).
    public var count: Int {
        counters[Counter.written.rawValue].load(ordering: .acquiring) - counters[Counter.read.rawValue].load(ordering: .acquiring)
    }

    /// Messages dropped because the ring was full, since it was made (producer side).
    public var dropped: Int { droppedCount.pointee }
}
