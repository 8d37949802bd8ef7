import Synchronization

/// A lock-free single-producer/single-consumer ring of stereo frames (deinterleaved), the
/// hand-over between a file reader (producer) and the player on the render thread (consumer).
/// Capacity is a power of two; indices are free-running counters published with
/// release/acquire ordering. The struct is a handle: copies share the storage, and exactly one
/// owner calls `deallocate()`.
///
/// - Realtime: `read`, `availableToRead`, `isFinished` are safe on the consumer side.
public struct StereoRing: @unchecked Sendable, Equatable {
    /// Two handles are equal when they share storage.
    public static func == (a: StereoRing, b: StereoRing) -> Bool { a.left == b.left }

    public let capacity: Int
    private let mask: Int
    private let left: UnsafeMutablePointer<Float>
    private let right: UnsafeMutablePointer<Float>
    /// The shared words, by `Counter`.
    @usableFromInline let counters: UnsafeMutablePointer<Atomic<Int>>
    /// The words producer, consumer and owner share.
    @usableFromInline enum Counter: Int, CaseIterable {
        /// Frames written since the ring was made (producer).
        case written
        /// Frames read since the ring was made (consumer).
        case read
        /// 1 once the producer has written the last frame of its stream (end of a file that does
        /// not loop, or a read error).
        case finished
        /// 1 while the stream loops (set by the owner, read by the consumer at pass ends).
        case looping
    }
    private static var counterCount: Int { Counter.allCases.count }
    /// Where the passes of a looping file end in this ring (nil: a plain stream, no passes).
    private let passStorage: UnsafeMutablePointer<PlayerPasses?>

    /// Allocates a ring holding at least `minimumCapacity` frames; `passes` tells the consumer
    /// where each pass of a looping file ends (see `PlayerPasses`).
    public init(minimumCapacity: Int, passes: PlayerPasses? = nil) {
        let c = powerOfTwo(atLeast: minimumCapacity)
        capacity = c
        mask = c - 1
        left = ZeroedFloats.allocate(c)
        right = ZeroedFloats.allocate(c)
        counters = .allocate(capacity: Self.counterCount)
        for i in 0..<Self.counterCount { (counters + i).initialize(to: Atomic(0)) }
        passStorage = .allocate(capacity: 1)
        passStorage.initialize(to: passes)
    }

    /// Frees the storage. Call once, when neither side uses the ring any more.
    public func deallocate() {
        ZeroedFloats.free(left)
        ZeroedFloats.free(right)
        counters.deinitialize(count: Self.counterCount)
        counters.deallocate()
        passStorage.deinitialize(count: 1)
        passStorage.deallocate()
    }

    /// Where the passes of the looping file end (nil for a plain stream).
    /// - Realtime: safe
    public var passes: PlayerPasses? {
        @_noLocks get { passStorage.pointee }
    }

    /// Whether the stream loops: at a pass end the consumer plays on (true) or stops (false).
    /// Set by the owner (any thread), read by the consumer.
    /// - Realtime: safe (reading)
    public var isLooping: Bool {
        @_noLocks get { counters[Counter.looping.rawValue].load(ordering: .acquiring) != 0 }
        nonmutating set { counters[Counter.looping.rawValue].store(newValue ? 1 : 0, ordering: .releasing) }
    }

    /// Frames the consumer has taken since the ring was made (readable from any thread).
    /// - Realtime: safe
    public var framesRead: Int {
        @_noLocks get { counters[Counter.read.rawValue].load(ordering: .acquiring) }
    }

    /// Frames the consumer can read now.
    public var availableToRead: Int {
        @_noLocks get { counters[Counter.written.rawValue].load(ordering: .acquiring) - counters[Counter.read.rawValue].load(ordering: .acquiring) }
    }
    /// Frames the producer can write now.
    @inlinable public var availableToWrite: Int { capacity - (writeIndex() - readIndex()) }

    @usableFromInline func writeIndex() -> Int { counters[Counter.written.rawValue].load(ordering: .acquiring) }
    @usableFromInline func readIndex() -> Int { counters[Counter.read.rawValue].load(ordering: .acquiring) }

    /// Producer: copies up to `frames` frames in; returns how many fitted.
    @discardableResult
    public func write(left l: UnsafePointer<Float>, right r: UnsafePointer<Float>, frames: Int) -> Int {
        let w = counters[Counter.written.rawValue].load(ordering: .relaxed)
        let n = min(frames, capacity - (w - counters[Counter.read.rawValue].load(ordering: .acquiring)))
        if n <= 0 { return 0 }
        let start = w & mask
        let first = min(n, capacity - start)
        // Block copies, one channel at a time (a loop over both channels at once moved one
        // float at a time: the compiler cannot tell the four buffers apart).
        Self.copy(l, to: left + start, count: first)
        Self.copy(r, to: right + start, count: first)
        Self.copy(l + first, to: left, count: n - first)
        Self.copy(r + first, to: right, count: n - first)
        counters[Counter.written.rawValue].store(w + n, ordering: .releasing)
        return n
    }

    /// `count` floats from `source` to `destination` (not overlapping), as one block copy.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    static func copy(_ source: UnsafePointer<Float>, to destination: UnsafeMutablePointer<Float>, count: Int) {
        UnsafeMutableRawPointer(destination).copyMemory(from: source, byteCount: count &* MemoryLayout<Float>.stride)
    }

    /// Consumer: copies up to `frames` frames out; returns how many were there.
    /// - Realtime: safe
    @_noLocks
    public func read(left l: UnsafeMutablePointer<Float>, right r: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let rd = counters[Counter.read.rawValue].load(ordering: .relaxed)
        let n = min(frames, counters[Counter.written.rawValue].load(ordering: .acquiring) - rd)
        if n <= 0 { return 0 }
        let start = rd & mask
        let first = min(n, capacity - start)
        Self.copy(left + start, to: l, count: first)
        Self.copy(right + start, to: r, count: first)
        Self.copy(left, to: l + first, count: n - first)
        Self.copy(right, to: r + first, count: n - first)
        counters[Counter.read.rawValue].store(rd + n, ordering: .releasing)
        return n
    }

    /// Producer: marks (or clears) the end of the stream. A reader that stops short of its end
    /// marker is starving the player: that is an underrun; after the marker it is the end.
    public func setFinished(_ finished: Bool) { counters[Counter.finished.rawValue].store(finished ? 1 : 0, ordering: .releasing) }

    /// True once the producer has marked the end of its stream.
    /// - Realtime: safe
    public var isFinished: Bool {
        @_noLocks get { counters[Counter.finished.rawValue].load(ordering: .acquiring) != 0 }
    }
}

/// The smallest power of two ≥ `n` (and ≥ 2): ring capacities, so that indices wrap with a mask.
public func powerOfTwo(atLeast n: Int) -> Int {
    var c = 2
    while c < n { c <<= 1 }
    return c
}
