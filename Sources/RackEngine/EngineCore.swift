import RackDSP
import Synchronization

/// The outcome of one render call, as AVAudioEngine's manual rendering reports it.
public enum RenderStatus: Sendable, Equatable {
    /// Every frame was rendered.
    case success
    /// The input node had nothing to give (rendered as silence); every other source was rendered.
    case insufficientDataFromInputNode
    /// Nothing was rendered now; try again on the next pass (the engine is being reconfigured).
    case cannotDoInCurrentContext
    /// Nothing was rendered: the request itself was wrong (more frames than the engine's maximum).
    case error
}

/// Constants of the engine's scheduling, in seconds, scaled by the sample rate at prepare.
public enum EngineTuning {
    /// Control period: coefficients are computed at control ticks on absolute sample positions
    /// every this many seconds (32 frames at 48 kHz) and interpolated linearly between them.
    public static let controlPeriodSeconds = 32.0 / 48_000
}

/// Indices of the ramps in `EngineCore.ramps` (`ParameterID` order), as plain constants.
enum Slot {
    static var cutoff: Int { @_noLocks get { 0 } }
    static var resonance: Int { @_noLocks get { 1 } }
    static var mix: Int { @_noLocks get { 2 } }
    static var gain: Int { @_noLocks get { 3 } }
}

/// A stretch of one render call that shares one linear interpolation of mix and gain.
struct MixSegment {
    var start: Int       // offset in the block
    var end: Int
    var offset: Int      // offset of `start` inside its control segment
    var length: Int      // length of the control segment
    var mixFrom: Float, mixTo: Float
    var gainFrom: Float, gainTo: Float
}

/// A room change at an offset in the block.
struct RoomChange {
    var offset: Int
    var room: Room
    var crossfadeFrames: Int
}

/// Everything the render thread touches: plain values and buffers allocated in `init`, no
/// class references. Owned by `Engine`, which allocates it and frees it.
public struct EngineCore {
    public let sampleRate: Double
    public let maxFrames: Int
    let controlPeriod: Int64
    /// Absolute sample position of the next frame to render.
    public internal(set) var sampleTime: Int64 = 0

    var ramps: UnsafeMutablePointer<Ramp>           // cutoff, resonance, mix, gain
    var defaultRampFrames: UnsafeMutablePointer<Int64> // per ParameterID
    var maximumRampFrames: UnsafeMutablePointer<Int64>
    public internal(set) var room: Room
    var filter = LowPass()
    var reverb = Reverb()
    var player = Player()

    /// The current control segment [segmentStart, segmentEnd).
    var segmentStart: Int64 = 0
    var segmentEnd: Int64 = 0

    let queue: EventQueue
    /// Render → control: every event as applied (with the sample it took effect at) and the
    /// rings the player let go of.
    let applied: EventQueue
    /// Counters the control thread reads while the render thread runs.
    let monitor: EngineMonitor
    /// Events waiting for their sample: a binary min-heap on (sample time, arrival order), so
    /// that inserting or taking one costs O(log n) however many far-future events wait, and
    /// events for the same sample apply in the order they came.
    var pending: UnsafeMutablePointer<EngineEvent>
    var pendingOrder: UnsafeMutablePointer<UInt64>
    var nextOrder: UInt64 = 0
    var pendingCount = 0
    let pendingCapacity: Int
    /// Events dropped because the pending list was full.
    public internal(set) var droppedEvents = 0

    /// Memoised conversions (render thread): the last filter settings and gain computed.
    var cachedCutoff = Double.nan, cachedResonance = Double.nan
    var cachedCoefficients = SIMD2<Double>.zero
    var cachedGainDecibels = Double.nan
    var cachedLinearGain: Float = 1

    /// Meter state (render thread): peaks of the current window, running sums of squares.
    var peakLeft: Float = 0, peakRight: Float = 0
    var sumSquaresLeft = 0.0, sumSquaresRight = 0.0
    var meteredFrames = 0

    var sumLeft, sumRight, wetLeft, wetRight, scratchLeft, scratchRight: UnsafeMutablePointer<Float>
    var segments: UnsafeMutablePointer<MixSegment>
    var roomChanges: UnsafeMutablePointer<RoomChange>

    /// Sets everything up for `sampleRate` and at most `maxFrames` per render call, starting
    /// at `state` (values in parameter units, room as an index). Allocates; not realtime.
    init(sampleRate: Double, maxFrames: Int, state: RackState, queue: EventQueue, applied: EventQueue,
         monitor: EngineMonitor, pendingCapacity: Int) {
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames
        controlPeriod = max(1, Int64((EngineTuning.controlPeriodSeconds * sampleRate).rounded()))
        self.queue = queue
        self.applied = applied
        self.monitor = monitor
        self.pendingCapacity = pendingCapacity
        pending = .allocate(capacity: pendingCapacity)
        pendingOrder = .allocate(capacity: pendingCapacity)
        let continuous = Parameters.all.filter { $0.taper != .choice }
        ramps = .allocate(capacity: continuous.count)
        for spec in continuous {
            (ramps + spec.id.rawValue).initialize(to: Ramp(value: state[spec.id], shape: spec.rampShape))
        }
        defaultRampFrames = .allocate(capacity: Parameters.all.count)
        maximumRampFrames = .allocate(capacity: Parameters.all.count)
        for spec in Parameters.all {
            defaultRampFrames[spec.id.rawValue] = Int64((spec.defaultRampSeconds * sampleRate).rounded())
            maximumRampFrames[spec.id.rawValue] = Int64((spec.maximumRampSeconds * sampleRate).rounded())
        }
        room = state.room
        func buffer() -> UnsafeMutablePointer<Float> {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: maxFrames)
            p.initialize(repeating: 0, count: maxFrames)
            return p
        }
        sumLeft = buffer(); sumRight = buffer()
        wetLeft = buffer(); wetRight = buffer()
        scratchLeft = buffer(); scratchRight = buffer()
        segments = .allocate(capacity: maxFrames + 1)
        roomChanges = .allocate(capacity: maxFrames + 1)
        filter.prepare(sampleRate: sampleRate, maxFrames: maxFrames)
        reverb.prepare(sampleRate: sampleRate, maxFrames: maxFrames)
        reverb.setRoom(state.room, crossfadeFrames: 0)
        player.prepare(sampleRate: sampleRate, maxFrames: maxFrames)
    }

    mutating func deallocate() {
        pending.deallocate()
        pendingOrder.deallocate()
        ramps.deallocate()
        defaultRampFrames.deallocate()
        maximumRampFrames.deallocate()
        for p in [sumLeft, sumRight, wetLeft, wetRight, scratchLeft, scratchRight] { p.deallocate() }
        segments.deallocate()
        roomChanges.deallocate()
        reverb.deallocate()
    }

    /// The target of every parameter (what `get` and `dump` report).
    public var targets: RackState {
        var s = RackState()
        for id in ParameterID.allCases where id != .room { s[id] = ramps[id.rawValue].target }
        s.room = room
        return s
    }

    /// The value a parameter has at the current sample time (mid-ramp values included).
    public func currentValue(_ id: ParameterID) -> Double {
        id == .room ? Double(room.rawValue) : ramps[id.rawValue].value(at: sampleTime)
    }

    /// True while any parameter is ramping.
    public var isRamping: Bool { isRampingNow }

    /// - Realtime: safe
    var isRampingNow: Bool {
        @_noLocks get {
            for p in 0..<4 where ramps[p].isMoving(at: sampleTime) { return true }
            return false
        }
    }

    // MARK: - Pending events (render thread)

    /// True when pending slot `a` comes before slot `b`.
    @_noLocks @inline(__always)
    func pendingBefore(_ a: Int, _ b: Int) -> Bool {
        let ta = pending[a].sampleTime, tb = pending[b].sampleTime
        return ta < tb || (ta == tb && pendingOrder[a] < pendingOrder[b])
    }

    @_noLocks @inline(__always)
    mutating func swapPending(_ a: Int, _ b: Int) {
        let e = pending[a]; pending[a] = pending[b]; pending[b] = e
        let o = pendingOrder[a]; pendingOrder[a] = pendingOrder[b]; pendingOrder[b] = o
    }

    /// Adds an event (after every event already waiting for the same sample).
    /// - Realtime: safe
    @_noLocks
    mutating func insertPending(_ event: EngineEvent) {
        if pendingCount == pendingCapacity { droppedEvents &+= 1; return }
        var i = pendingCount
        pending[i] = event
        pendingOrder[i] = nextOrder
        nextOrder &+= 1
        pendingCount += 1
        while i > 0 {
            let parent = (i - 1) / 2
            if !pendingBefore(i, parent) { break }
            swapPending(i, parent)
            i = parent
        }
    }

    /// Takes the earliest pending event (the caller checked there is one).
    /// - Realtime: safe
    @_noLocks
    mutating func popPending() -> EngineEvent {
        let first = pending[0]
        pendingCount -= 1
        if pendingCount > 0 {
            pending[0] = pending[pendingCount]
            pendingOrder[0] = pendingOrder[pendingCount]
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < pendingCount && pendingBefore(l, m) { m = l }
                if r < pendingCount && pendingBefore(r, m) { m = r }
                if m == i { break }
                swapPending(i, m)
                i = m
            }
        }
        return first
    }

    /// Applies one event at absolute sample `t` (`offset` into the block).
    @_noLocks
    mutating func apply(_ e: EngineEvent, at t: Int64, offset: Int, roomChangeCount: inout Int) {
        var echo = e
        echo.sampleTime = t
        switch e.kind {
        case .play: player.setPlaying(true)
        case .stop: player.setPlaying(false)
        case .attachPlayer: player.attach(e.ring)
        case .releasedRing: return
        case .marker: break
        case .parameter:
            let p = e.parameter.index
            let frames = min(e.rampFrames > 0 ? e.rampFrames : defaultRampFrames[p], maximumRampFrames[p])
            if e.parameter.isRoom {
                let r = Room.at(index: Int(e.value)) ?? room
                if r != room {
                    room = r
                    // Collapse changes at the same sample into the last one.
                    if roomChangeCount > 0 && roomChanges[roomChangeCount - 1].offset == offset {
                        roomChanges[roomChangeCount - 1] = RoomChange(offset: offset, room: r, crossfadeFrames: Int(frames))
                    } else {
                        roomChanges[roomChangeCount] = RoomChange(offset: offset, room: r, crossfadeFrames: Int(frames))
                        roomChangeCount += 1
                    }
                }
            } else {
                ramps[p].retarget(to: e.value, at: t, frames: frames)
            }
        }
        if !applied.push(echo) { monitor.add(.droppedFeedback, 1) }
    }
}

/// The one render function: every driver (JACK's process callback, the offline renderer)
/// calls this. Renders `frames` frames of the graph
/// (player + input → low-pass → reverb wet/dry → gain) into `outputLeft/Right`, applying every
/// event at its sample. Inputs may be nil (silence; reported as insufficient input).
///
/// Block-size invariance: parameters are evaluated at control segments bounded by absolute
/// ticks (every `controlPeriod` samples), event times and ramp ends, never by the block edges,
/// so any split of the same timeline into calls gives the same samples.
///
/// - Realtime: safe (no allocation, no locks, no I/O; checked by the compiler).
@_noLocks
public func rackRender(_ core: UnsafeMutablePointer<EngineCore>, frames: Int,
                       inputLeft: UnsafePointer<Float>?, inputRight: UnsafePointer<Float>?,
                       outputLeft: UnsafeMutablePointer<Float>, outputRight: UnsafeMutablePointer<Float>) -> RenderStatus {
    guard frames >= 0 && frames <= core.pointee.maxFrames else { return .error }
    if frames == 0 { return .success }

    // Events posted by the control thread join the time-ordered pending list.
    while let e = core.pointee.queue.pop() { core.pointee.insertPending(e) }

    let sumL = core.pointee.sumLeft, sumR = core.pointee.sumRight
    var status = RenderStatus.success
    if let inputLeft, let inputRight {
        for i in 0..<frames {
            sumL[i] = inputLeft[i]
            sumR[i] = inputRight[i]
        }
    } else {
        for i in 0..<frames {
            sumL[i] = 0
            sumR[i] = 0
        }
        status = .insufficientDataFromInputNode
    }

    let t0 = core.pointee.sampleTime
    let end = t0 + Int64(frames)
    let period = core.pointee.controlPeriod
    var t = t0
    var segmentCount = 0
    var roomChangeCount = 0

    while t < end {
        let offset = Int(t - t0)
        // Apply every event that is due (late events apply now).
        var due = 0
        while core.pointee.pendingCount > 0 && core.pointee.pending[0].sampleTime <= t {
            let e = core.pointee.popPending()
            core.pointee.apply(e, at: t, offset: offset, roomChangeCount: &roomChangeCount)
            due += 1
        }

        // The control segment holding t: a new one starts at a boundary or after an event.
        // While a ramp moves, segments end at control ticks and ramp ends; when nothing moves
        // the values are constant, a segment runs to the next event, and splitting it anywhere
        // would give the same samples (constant interpolation is exact).
        if due > 0 || t >= core.pointee.segmentEnd || t < core.pointee.segmentStart {
            var e = Int64.max
            for p in 0..<4 {
                let rampEnd = core.pointee.ramps[p].endSample
                if rampEnd > t {
                    e = min(min(e, rampEnd), (t / period + 1) * period)
                }
            }
            core.pointee.segmentStart = t
            core.pointee.segmentEnd = e
        }
        if core.pointee.pendingCount > 0 {
            let next = core.pointee.pending[0].sampleTime
            if next > t && next < core.pointee.segmentEnd { core.pointee.segmentEnd = next }
        }
        let s = core.pointee.segmentStart, e = core.pointee.segmentEnd
        let b = min(e, end)
        let n = Int(b - t)
        // A steady segment may be open-ended: interpolate over its part in this block (the
        // values are constant, so the length does not matter).
        let length = e == Int64.max ? Int(b - s) : Int(e - s)
        let eValue = e == Int64.max ? s : e

        // Parameter values at both ends of the control segment.
        let ramps = core.pointee.ramps
        let from = core.pointee.coefficients(cutoffHz: ramps[Slot.cutoff].value(at: s),
                                             resonanceDecibels: ramps[Slot.resonance].value(at: s))
        let to = core.pointee.coefficients(cutoffHz: ramps[Slot.cutoff].value(at: eValue),
                                           resonanceDecibels: ramps[Slot.resonance].value(at: eValue))

        core.pointee.player.process(left: sumL + offset, right: sumR + offset,
                                    scratchLeft: core.pointee.scratchLeft, scratchRight: core.pointee.scratchRight,
                                    frames: n)
        // A ring the player let go of goes back to the control thread, which frees it.
        if !core.pointee.applied.isFull, let r = core.pointee.player.takeReleased() {
            _ = core.pointee.applied.push(EngineEvent(sampleTime: t, kind: .releasedRing, ring: r))
        }
        core.pointee.filter.process(left: sumL + offset, right: sumR + offset, frames: n,
                                    from: from, to: to, offset: Int(t - s), length: length)
        core.pointee.segments[segmentCount] = MixSegment(
            start: offset, end: offset + n, offset: Int(t - s), length: length,
            mixFrom: Float(ramps[Slot.mix].value(at: s) / 100),
            mixTo: Float(ramps[Slot.mix].value(at: eValue) / 100),
            gainFrom: core.pointee.linearGain(decibels: ramps[Slot.gain].value(at: s)),
            gainTo: core.pointee.linearGain(decibels: ramps[Slot.gain].value(at: eValue)))
        segmentCount += 1
        t = b
    }

    // The reverb runs over the whole block, split only where the room changes.
    let wetL = core.pointee.wetLeft, wetR = core.pointee.wetRight
    var done = 0
    for c in 0..<roomChangeCount {
        let change = core.pointee.roomChanges[c]
        if change.offset > done {
            core.pointee.reverb.process(inputLeft: sumL + done, inputRight: sumR + done,
                                        outputLeft: wetL + done, outputRight: wetR + done, frames: change.offset - done)
            done = change.offset
        }
        core.pointee.reverb.setRoom(change.room, crossfadeFrames: change.crossfadeFrames)
    }
    if frames > done {
        core.pointee.reverb.process(inputLeft: sumL + done, inputRight: sumR + done,
                                    outputLeft: wetL + done, outputRight: wetR + done, frames: frames - done)
    }

    // Wet/dry (linear crossfade) and output gain, interpolated across each control segment;
    // the meters (peak, energy) are taken in the same pass.
    let monitor = core.pointee.monitor
    if monitor.read(.peakReset) != 0 {
        monitor.set(.peakReset, 0)
        core.pointee.peakLeft = 0
        core.pointee.peakRight = 0
    }
    var peak = SIMD2<Float>(core.pointee.peakLeft, core.pointee.peakRight)
    var energy = SIMD2<Float>.zero
    for k in 0..<segmentCount {
        let seg = core.pointee.segments[k]
        let mixGain = mixAndGain(seg, sumL: sumL, sumR: sumR, wetL: wetL, wetR: wetR,
                                 outputLeft: outputLeft, outputRight: outputRight)
        peak = pointwiseMax(peak, mixGain.peak)
        energy += mixGain.energy
    }

    core.pointee.sampleTime = end
    core.pointee.peakLeft = peak.x
    core.pointee.peakRight = peak.y
    core.pointee.sumSquaresLeft += Double(energy.x)
    core.pointee.sumSquaresRight += Double(energy.y)
    core.pointee.meteredFrames &+= frames
    monitor.set(.peakLeft, Int(peak.x.bitPattern))
    monitor.set(.peakRight, Int(peak.y.bitPattern))
    monitor.set(.sumSquaresLeft, Int(Int64(bitPattern: core.pointee.sumSquaresLeft.bitPattern)))
    monitor.set(.sumSquaresRight, Int(Int64(bitPattern: core.pointee.sumSquaresRight.bitPattern)))
    monitor.set(.meteredFrames, core.pointee.meteredFrames)
    monitor.set(.ramping, core.pointee.isRampingNow ? 1 : 0)
    monitor.set(.sampleTime, Int(end))
    monitor.set(.playerFrames, Int(core.pointee.player.framesPlayed))
    monitor.set(.playerUnderruns, core.pointee.player.underrunFrames)
    monitor.set(.playing, core.pointee.player.isPlaying ? 1 : 0)
    monitor.set(.droppedEvents, core.pointee.droppedEvents)
    return status
}

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

/// Output of one mix segment: wet/dry and gain interpolated across the control segment,
/// written to the outputs; returns the segment's peak and energy per channel. Each channel is
/// a plain loop over floats, so the compiler vectorises it across samples.
/// - Realtime: safe
@_noLocks @inline(__always)
func mixAndGain(_ seg: MixSegment, sumL: UnsafeMutablePointer<Float>, sumR: UnsafeMutablePointer<Float>,
                wetL: UnsafeMutablePointer<Float>, wetR: UnsafeMutablePointer<Float>,
                outputLeft: UnsafeMutablePointer<Float>, outputRight: UnsafeMutablePointer<Float>) -> (peak: SIMD2<Float>, energy: SIMD2<Float>) {
    let left = mixChannel(seg, dry: sumL, wet: wetL, output: outputLeft)
    let right = mixChannel(seg, dry: sumR, wet: wetR, output: outputRight)
    return (SIMD2(left.peak, right.peak), SIMD2(left.energy, right.energy))
}

/// One channel of `mixAndGain`.
/// - Realtime: safe
@_noLocks @inline(__always)
func mixChannel(_ seg: MixSegment, dry: UnsafeMutablePointer<Float>, wet: UnsafeMutablePointer<Float>,
                output: UnsafeMutablePointer<Float>) -> (peak: Float, energy: Float) {
    let dm = seg.mixTo - seg.mixFrom, dg = seg.gainTo - seg.gainFrom
    var peak: Float = 0, energy: Float = 0
    if dm == 0 && dg == 0 {
        // Steady: the same arithmetic with x·0 = 0.
        let m = seg.mixFrom, g = seg.gainFrom
        for i in seg.start..<seg.end {
            let y = (dry[i] + (wet[i] - dry[i]) * m) * g
            output[i] = y
            peak = max(peak, y.magnitude)
            energy += y * y
        }
        return (peak, energy)
    }
    let inv = 1 / Float(seg.length)
    for i in seg.start..<seg.end {
        let x = Float(seg.offset + i - seg.start) * inv
        let y = (dry[i] + (wet[i] - dry[i]) * (seg.mixFrom + dm * x)) * (seg.gainFrom + dg * x)
        output[i] = y
        peak = max(peak, y.magnitude)
        energy += y * y
    }
    return (peak, energy)
}

/// Element-wise |x| of a SIMD2 (the generic `abs` is not available on SIMD vectors).
/// - Realtime: safe
@_noLocks @inline(__always)
func abs(_ v: SIMD2<Float>) -> SIMD2<Float> { v.replacing(with: -v, where: v .< 0) }

extension EngineCore {
    /// Filter coefficients, memoised: steady settings never call `tan` again.
    /// - Realtime: safe
    @_noLocks
    mutating func coefficients(cutoffHz: Double, resonanceDecibels: Double) -> SIMD2<Double> {
        if cutoffHz == cachedCutoff && resonanceDecibels == cachedResonance { return cachedCoefficients }
        let c = filter.coefficients(cutoffHz: cutoffHz, resonanceDecibels: resonanceDecibels)
        cachedCutoff = cutoffHz
        cachedResonance = resonanceDecibels
        cachedCoefficients = c
        return c
    }

    /// 10^(dB/20) as a Float, memoised for steady gains.
    /// - Realtime: safe
    @_noLocks
    mutating func linearGain(decibels: Double) -> Float {
        if decibels == cachedGainDecibels { return cachedLinearGain }
        cachedGainDecibels = decibels
        cachedLinearGain = Float(RackMath.gain(decibels: decibels))
        return cachedLinearGain
    }
}
