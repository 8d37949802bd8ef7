/// The rack's output stage: a linear wet/dry crossfade followed by an output gain, with the
/// output meter (peak and energy per channel) taken in the same pass. JUCE keeps the two as
/// processors of their own (`dsp::DryWetMixer`, `dsp::Gain`); here they share one loop so the
/// output is written and read once.
///
/// Per sample and channel: `y = (dry + (wet − dry)·mix)·gain + input·bypass`, mix a wet
/// fraction (0 = dry, 1 = wet), gain a linear factor and bypass the share (0…1) of the rack's
/// unprocessed input (the caller has already faded the dry path, which feeds the reverb, by
/// 1 − bypass, so the reverb's tail rings out behind the input). All three move linearly
/// across a control segment (see `Segment`). Fully bypassed (bypass 1 across a segment) the
/// output is the input exactly, plus the wet tail while it is above `tailFloor`. Within a render call the caller first lists the call's segments with `append`,
/// while it runs the stages before the reverb, then `process` mixes the whole call.
/// Noncopyable: it owns its segment list (see `UniqueBuffer`), freed with it.
public struct WetDryGain: ~Copyable {
    /// A stretch of one render call over which mix and gain share one linear interpolation.
    /// Sample `i` of the call (start ≤ i < end) sits at `x = (offset + i − start)/length` of
    /// its control segment and takes `mix = mixFrom + (mixTo − mixFrom)·x`, likewise `gain`.
    public struct Segment: Sendable {
        /// First frame (offset in the render call) and one past the last.
        public var start: Int, end: Int
        /// Offset of `start` inside its control segment, and that segment's length in frames.
        public var offset: Int, length: Int
        /// Wet fraction (0…1) at the control segment's start and end.
        public var mixFrom: Float, mixTo: Float
        /// Linear output gain at the control segment's start and end.
        public var gainFrom: Float, gainTo: Float
        /// Share of the unprocessed input (0…1) at the control segment's start and end.
        public var bypassFrom: Float, bypassTo: Float

        /// - Realtime: safe
        @_noLocks
        public init(start: Int, end: Int, offset: Int, length: Int,
                    mixFrom: Float, mixTo: Float, gainFrom: Float, gainTo: Float,
                    bypassFrom: Float = 0, bypassTo: Float = 0) {
            self.start = start; self.end = end
            self.offset = offset; self.length = length
            self.mixFrom = mixFrom; self.mixTo = mixTo
            self.gainFrom = gainFrom; self.gainTo = gainTo
            self.bypassFrom = bypassFrom; self.bypassTo = bypassTo
        }

        /// True when no input is mixed in anywhere in the segment.
        /// - Realtime: safe
        var isProcessedOnly: Bool { @_noLocks get { bypassFrom == 0 && bypassTo == 0 } }
    }

    /// The output meter: peaks of the current window and running sums of squares.
    public struct Meter: Sendable {
        /// Largest |output| per channel since the last `resetPeaks` (linear).
        public var peakLeft: Float = 0, peakRight: Float = 0
        /// Running sums of squared output samples per channel since `prepare`; take
        /// differences over any window for RMS.
        public var sumSquaresLeft = 0.0, sumSquaresRight = 0.0
        /// Frames the sums cover.
        public var frames = 0
    }

    /// The meter after the last `process`.
    public private(set) var meter = Meter()
    /// The segments of the current render call (`maxFrames + 1` slots, allocated in `prepare`;
    /// none before).
    private var segments = UniqueBuffer<Segment>()
    private var segmentCount = 0
    /// The last gain converted to linear, and its conversion (the memo of `linearGain`).
    private var memoGainDecibels = Double.nan
    private var memoLinearGain: Float = 1

    public init() {}

    /// 10^(dB/20) as a Float for a segment's `gainFrom`/`gainTo`, memoised: steady gains are
    /// converted once.
    /// - Realtime: safe
    @_noLocks
    public mutating func linearGain(decibels: Double) -> Float {
        if decibels == memoGainDecibels { return memoLinearGain }
        memoGainDecibels = decibels
        memoLinearGain = Float(RackMath.gain(decibels: decibels))
        return memoLinearGain
    }

    /// Allocates room for the segments of a call of up to `maxFrames` frames (at most one a
    /// frame) and clears the meter. Not realtime.
    public mutating func prepare(sampleRate: Double, maxFrames: Int) {
        let unused = Segment(start: 0, end: 0, offset: 0, length: 1, mixFrom: 0, mixTo: 0, gainFrom: 1, gainTo: 1)
        segments = UniqueBuffer(repeating: unused, count: maxFrames + 1)
        reset()
    }

    /// Forgets listed segments and clears the meter.
    /// - Realtime: safe
    @_noLocks
    public mutating func reset() {
        segmentCount = 0
        meter = Meter()
    }

    /// Starts a new peak window.
    /// - Realtime: safe
    @_noLocks
    public mutating func resetPeaks() {
        meter.peakLeft = 0
        meter.peakRight = 0
    }

    /// Lists the next segment of the current render call (segments come in frame order).
    /// - Realtime: safe
    @_noLocks
    public mutating func append(_ segment: Segment) {
        guard segmentCount < segments.count else { return }
        segments.base[segmentCount] = segment
        segmentCount += 1
    }

    /// A wet sample below this magnitude (−120 dBFS, where the reverb ends a spilled tail) is
    /// left out while fully bypassed: the output is then the input bit for bit.
    public static var tailFloor: Float { @inline(__always) @_noLocks get { 1e-6 } }

    /// One call's buffers: the dry and wet inputs, the unprocessed input (read only where a
    /// segment's bypass is not 0) and the output, `frames` each (the output's frame count is
    /// the call's).
    public struct Block {
        public var dry: StereoBuffers, wet: StereoBuffers, input: StereoBuffers, output: StereoBuffers

        /// - Realtime: safe
        @_noLocks @inline(__always)
        public init(dry: StereoBuffers, wet: StereoBuffers, input: StereoBuffers, output: StereoBuffers) {
            self.dry = dry
            self.wet = wet
            self.input = input
            self.output = output
        }
    }

    /// Mixes the listed segments over `block` (see the other `process`).
    /// - Realtime: safe
    @_noLocks
    public mutating func process(_ block: Block) {
        var peak = SIMD2<Float>(meter.peakLeft, meter.peakRight)
        var energy = SIMD2<Float>.zero
        for k in 0..<segmentCount {
            let seg = segments.base[k]
            let left = seg.isProcessedOnly
                ? Self.mixChannel(seg, dry: block.dry.left, wet: block.wet.left, output: block.output.left)
                : Self.bypassChannel(seg, dry: block.dry.left, wet: block.wet.left, input: block.input.left,
                                     output: block.output.left)
            let right = seg.isProcessedOnly
                ? Self.mixChannel(seg, dry: block.dry.right, wet: block.wet.right, output: block.output.right)
                : Self.bypassChannel(seg, dry: block.dry.right, wet: block.wet.right, input: block.input.right,
                                     output: block.output.right)
            peak = pointwiseMax(peak, SIMD2(left.peak, right.peak))
            energy += SIMD2(left.energy, right.energy)
        }
        finish(peak: peak, energy: energy, frames: block.output.frames)
    }

    /// Forgets the segments and adds a call's peaks and energy to the meter.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func finish(peak: SIMD2<Float>, energy: SIMD2<Float>, frames: Int) {
        segmentCount = 0
        meter.peakLeft = peak.x
        meter.peakRight = peak.y
        meter.sumSquaresLeft += Double(energy.x)
        meter.sumSquaresRight += Double(energy.y)
        meter.frames &+= frames
    }

    /// One channel of a segment with some input in it, sample by sample:
    /// `(dry + (wet − dry)·mix)·gain + input·bypass`; at bypass 1 throughout, the input
    /// alone plus the wet tail above `tailFloor` (`wet·mix·gain`: the dry path is faded out).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    static func bypassChannel(_ seg: Segment, dry: UnsafeMutablePointer<Float>, wet: UnsafeMutablePointer<Float>,
                              input: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>)
        -> (peak: Float, energy: Float) {
        let settled = seg.bypassFrom == 1 && seg.bypassTo == 1
        let inv = 1 / Float(seg.length)
        var peak: Float = 0, energy: Float = 0
        for i in seg.start..<seg.end {
            let x = Float(seg.offset + i - seg.start) * inv
            let mix = seg.mixFrom + (seg.mixTo - seg.mixFrom) * x
            let gain = seg.gainFrom + (seg.gainTo - seg.gainFrom) * x
            let y: Float
            if settled {
                y = wet[i].magnitude < tailFloor ? input[i] : input[i] + wet[i] * mix * gain
            } else {
                let bypass = seg.bypassFrom + (seg.bypassTo - seg.bypassFrom) * x
                y = (dry[i] + (wet[i] - dry[i]) * mix) * gain + input[i] * bypass
            }
            output[i] = y
            peak = max(peak, y.magnitude)
            energy += y * y
        }
        return (peak, energy)
    }

    /// Mixes the listed segments with no separate input (a segment's bypass share takes
    /// `dry`): `output = (dry + (wet − dry)·mix)·gain` per channel, then adds the call's peaks
    /// and energy to the meter (`frames` frames) and forgets the segments. Outputs may not
    /// alias the inputs.
    /// - Realtime: safe
    @_noLocks
    public mutating func process(dryLeft: UnsafeMutablePointer<Float>, dryRight: UnsafeMutablePointer<Float>,
                                 wetLeft: UnsafeMutablePointer<Float>, wetRight: UnsafeMutablePointer<Float>,
                                 outputLeft: UnsafeMutablePointer<Float>, outputRight: UnsafeMutablePointer<Float>,
                                 frames: Int) {
        let dry = StereoBuffers(left: dryLeft, right: dryRight, frames: frames)
        process(Block(dry: dry, wet: StereoBuffers(left: wetLeft, right: wetRight, frames: frames), input: dry,
                      output: StereoBuffers(left: outputLeft, right: outputRight, frames: frames)))
    }

    /// One channel of one segment; returns its peak |y| and its energy Σy². Eight samples at a
    /// time (a float sum is not reassociated by the compiler, so a plain loop would run one
    /// sample at a time), the remainder one by one; every output sample is the same expression
    /// either way.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    static func mixChannel(_ seg: Segment, dry: UnsafeMutablePointer<Float>, wet: UnsafeMutablePointer<Float>,
                           output: UnsafeMutablePointer<Float>) -> (peak: Float, energy: Float) {
        let dm = seg.mixTo - seg.mixFrom, dg = seg.gainTo - seg.gainFrom
        let steady = dm == 0 && dg == 0
        let inv = 1 / Float(seg.length)
        let lane = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        var peaks = SIMD8<Float>.zero, energies = SIMD8<Float>.zero
        var i = seg.start
        while seg.end - i >= 8 {
            let d = UnsafeRawPointer(dry + i).loadUnaligned(as: SIMD8<Float>.self)
            let w = UnsafeRawPointer(wet + i).loadUnaligned(as: SIMD8<Float>.self)
            let y: SIMD8<Float>
            if steady {
                // Steady: the same arithmetic with x·0 = 0.
                y = (d + (w - d) * seg.mixFrom) * seg.gainFrom
            } else {
                let x = (SIMD8<Float>(repeating: Float(seg.offset + i - seg.start)) + lane) * inv
                y = (d + (w - d) * (seg.mixFrom + dm * x)) * (seg.gainFrom + dg * x)
            }
            UnsafeMutableRawPointer(output + i).storeBytes(of: y, as: SIMD8<Float>.self)
            // |y| and the running maximum by lane selection (the generic pointwiseMax is a call).
            let magnitude = y.replacing(with: -y, where: y .< 0)
            peaks = peaks.replacing(with: magnitude, where: magnitude .> peaks)
            energies += y * y
            i &+= 8
        }
        var peak = peaks.max(), energy = energies.sum()
        while i < seg.end {
            let y: Float
            if steady {
                y = (dry[i] + (wet[i] - dry[i]) * seg.mixFrom) * seg.gainFrom
            } else {
                let x = Float(seg.offset + i - seg.start) * inv
                y = (dry[i] + (wet[i] - dry[i]) * (seg.mixFrom + dm * x)) * (seg.gainFrom + dg * x)
            }
            output[i] = y
            peak = max(peak, y.magnitude)
            energy += y * y
            i &+= 1
        }
        return (peak, energy)
    }
}

extension WetDryGain: Kernel {}
