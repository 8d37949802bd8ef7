import Synchronization

/// Counters the render thread publishes for the control thread (lock-free atomics).
/// A handle: copies share storage; the engine frees it.
public struct EngineMonitor: @unchecked Sendable {
    public enum Counter: Int, CaseIterable {
        /// Sample time at the end of the last render call.
        case sampleTime
        /// Frames the player took from its current ring.
        case playerFrames
        /// Frames the player's reader failed to deliver in time.
        case playerUnderruns
        /// 1 while the player's transport rolls.
        case playing
        /// Events dropped because the render thread's pending list was full.
        case droppedEvents
        /// Applied-event echoes dropped because the control thread fell behind.
        case droppedFeedback
        /// Output peaks since the control thread last asked (Float bit patterns).
        case peakLeft, peakRight
        /// Running sums of squared output samples (Double bit patterns) and the frame count
        /// they cover: the control thread takes differences for RMS over any window.
        case sumSquaresLeft, sumSquaresRight, meteredFrames
        /// 1 while a parameter ramp is moving.
        case ramping
        /// Set by the control thread to start a new peak window.
        case peakReset
        /// Samples of the dry sum (live input + player; each channel's sample counts once)
        /// replaced by 0 because they were NaN, ±Inf or beyond `InputSanitiser.maximumMagnitude`,
        /// since the engine started. Added to by the render thread only when it happens.
        case replacedInputSamples
    }
    private let slots: UnsafeMutablePointer<Atomic<Int>>

    init() {
        slots = .allocate(capacity: Counter.allCases.count)
        for i in 0..<Counter.allCases.count { (slots + i).initialize(to: Atomic(0)) }
    }

    func deallocate() {
        slots.deinitialize(count: Counter.allCases.count)
        slots.deallocate()
    }

    /// - Realtime: safe
    @_noLocks func set(_ c: Counter, _ value: Int) { slots[c.rawValue].store(value, ordering: .releasing) }
    /// - Realtime: safe
    @_noLocks func add(_ c: Counter, _ value: Int) { slots[c.rawValue].add(value, ordering: .relaxed) }
    /// Reads a counter (any thread).
    public func get(_ c: Counter) -> Int { slots[c.rawValue].load(ordering: .acquiring) }
    /// - Realtime: safe
    @_noLocks func read(_ c: Counter) -> Int { slots[c.rawValue].load(ordering: .acquiring) }

    /// Control thread: the output meters since the last call: peaks (linear), the running
    /// sums of squares and the frame count (take differences for RMS). Starts a new peak window.
    public func takeMeters() -> (peakLeft: Float, peakRight: Float, sumSquaresLeft: Double, sumSquaresRight: Double, frames: Int) {
        let pl = Float(bitPattern: UInt32(truncatingIfNeeded: get(.peakLeft)))
        let pr = Float(bitPattern: UInt32(truncatingIfNeeded: get(.peakRight)))
        let sl = Double(bitPattern: UInt64(bitPattern: Int64(get(.sumSquaresLeft))))
        let sr = Double(bitPattern: UInt64(bitPattern: Int64(get(.sumSquaresRight))))
        let n = get(.meteredFrames)
        slots[Counter.peakReset.rawValue].store(1, ordering: .releasing)
        return (pl, pr, sl, sr, n)
    }
}
