/// Stereo resonant 2-pole (12 dB/octave) low-pass: the trapezoidal-integrated state-variable
/// filter of A. Simper, "Linear Trapezoidal Integrated SVF" (Cytomic technical paper, 2013),
/// a topology-preserving transform (V. Zavalishin, "The Art of VA Filter Design", ch. 4).
/// Its state is energy-based, so it stays stable when `g` and `k` move at audio rate. A state
/// that goes non-finite (a NaN or ±Inf got in) resets itself at the end of that call.
///
/// Resonance follows the AUv3 filter sample: the gain at the cutoff equals the resonance in dB,
/// so Q = 10^(resonanceDecibels/20) and the damping is `k = 1/Q`. The bilinear prewarp
/// `g = tan(π·cutoff/sampleRate)` puts that peak exactly at the cutoff.
///
/// The coefficients are computed at control-rate points (the settings at the two ends of a
/// control segment, memoised: steady settings never call `tan` again) and interpolated
/// linearly per sample in `process`, so `tan` is never evaluated per sample. A `Kernel`.
public struct LowPass: Sendable {
    /// One call's work: filter `buffers` in place over part of a control segment of `length`
    /// samples, the settings moving from `from` at its start to `to` at its end; the call
    /// starts `offset` samples into the segment.
    public struct Block {
        public var buffers: StereoBuffers
        public var from: Setting, to: Setting
        public var offset: Int, length: Int

        /// - Realtime: safe
        @_noLocks @inline(__always)
        public init(buffers: StereoBuffers, from: Setting, to: Setting, offset: Int, length: Int) {
            self.buffers = buffers
            self.from = from
            self.to = to
            self.offset = offset
            self.length = length
        }
    }

    /// The filter's settings in parameter units.
    public struct Setting: Sendable, Equatable {
        public var cutoffHz: Double
        public var resonanceDecibels: Double

        /// - Realtime: safe
        @_noLocks @inline(__always)
        public init(cutoffHz: Double, resonanceDecibels: Double) {
            self.cutoffHz = cutoffHz
            self.resonanceDecibels = resonanceDecibels
        }
    }

    /// Integrator states (Simper's ic1eq, ic2eq), left and right in one vector.
    private var ic1eq = SIMD2<Float>.zero
    private var ic2eq = SIMD2<Float>.zero
    /// The first sample of a two-sample step that the last call ended on: its input and the
    /// coefficients (g, k) it was filtered with; the integrator states are still those before it.
    private var halfPair: HalfPair? = nil
    public private(set) var sampleRate: Double = 48_000
    /// Times the state went non-finite (a NaN or ±Inf got in) and the filter reset itself.
    public private(set) var faultResets = 0

    /// Highest cutoff the filter will run at, in Hz: the caller's cap (the parameter table's
    /// maximum), lowered to a little below Nyquist so tan() stays finite.
    public private(set) var maximumCutoffHz: Double = LowPassTuning.highestCutoffRatio * 48_000
    /// The caller's cap on the cutoff in Hz, before the rate's limit.
    private var cutoffCapHz: Double

    /// The last settings `process` converted and their coefficients (g, k).
    private var memoSetting = Setting(cutoffHz: .nan, resonanceDecibels: .nan)
    private var memoCoefficients = SIMD2<Double>.zero

    /// A filter whose cutoff never goes above `maximumCutoffHz` (the caller's parameter range)
    /// at any rate.
    public init(maximumCutoffHz: Double = .infinity) {
        cutoffCapHz = maximumCutoffHz
    }

    /// Sets the rate (the highest cutoff becomes the caller's cap, lowered to
    /// `LowPassTuning.highestCutoffRatio · sampleRate`); clears the state and the memo.
    /// Allocates nothing.
    public mutating func prepare(sampleRate: Double, maxFrames: Int) {
        self.sampleRate = sampleRate
        maximumCutoffHz = min(cutoffCapHz, LowPassTuning.highestCutoffRatio * sampleRate)
        memoSetting = Setting(cutoffHz: .nan, resonanceDecibels: .nan)
        reset()
    }

    /// `prepare(sampleRate:maxFrames:)` with a new cap on the cutoff in Hz.
    public mutating func prepare(sampleRate: Double, maxFrames: Int, maximumCutoffHz: Double) {
        cutoffCapHz = maximumCutoffHz
        prepare(sampleRate: sampleRate, maxFrames: maxFrames)
    }

    /// Clears the integrators.
    /// - Realtime: safe
    @_noLocks
    public mutating func reset() {
        ic1eq = .zero
        ic2eq = .zero
        halfPair = nil
    }

    /// The filter coefficients (g, k) for a cutoff in Hz and a resonance in dB.
    /// - Realtime: safe
    @_noLocks
    public func coefficients(cutoffHz: Double, resonanceDecibels: Double) -> SIMD2<Double> {
        let fc = min(max(cutoffHz, 1), maximumCutoffHz)
        let g = RackMath.tan(RackMath.pi * fc / sampleRate)
        let k = 1 / RackMath.gain(decibels: resonanceDecibels)
        return SIMD2(g, k)
    }

    /// The coefficients of `setting`, memoised: steady settings never call `tan` again.
    /// - Realtime: safe
    @_noLocks
    mutating func memoisedCoefficients(_ setting: Setting) -> SIMD2<Double> {
        if setting.cutoffHz == memoSetting.cutoffHz && setting.resonanceDecibels == memoSetting.resonanceDecibels {
            return memoCoefficients
        }
        memoCoefficients = coefficients(cutoffHz: setting.cutoffHz, resonanceDecibels: setting.resonanceDecibels)
        memoSetting = setting
        return memoCoefficients
    }

    /// Filters one block in place (see `Block`), its settings converted through the memo.
    /// - Realtime: safe
    @_noLocks
    public mutating func process(_ block: Block) {
        let from = memoisedCoefficients(block.from)
        let to = memoisedCoefficients(block.to)
        process(left: block.buffers.left, right: block.buffers.right, frames: block.buffers.frames,
                from: from, to: to, offset: block.offset, length: block.length)
    }

    /// Filters `frames` samples in place. The coefficients move linearly across a control
    /// segment of `length` samples, from `from` at its start to `to` at its end; this call
    /// processes the part starting `offset` samples into the segment, so sample i (0-based in
    /// this call) uses `from + (to − from)·(offset + i)/length`. Processing a segment in one
    /// call or in pieces gives the same samples.
    /// - Realtime: safe
    @_noLocks
    public mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                                 frames: Int, from: SIMD2<Double>, to: SIMD2<Double>,
                                 offset: Int, length: Int) {
        let c0 = SIMD2<Float>(Float(from.x), Float(from.y))
        let dc = SIMD2<Float>(Float(to.x - from.x), Float(to.y - from.y))
        var s1 = ic1eq, s2 = ic2eq
        var i = 0
        // The state update at the call's start (for steady coefficients, the whole call's:
        // formed once per call, not per sample), and its two-sample form.
        let m2 = TwoStepUpdate(StateUpdate(Self.gains(g: c0.x, k: c0.y)))
        if let half = halfPair {
            // A pair begun by the previous call: finish it when this call goes on with the same
            // constant coefficients (a block edge inside a segment), else take its first
            // sample's single step (its output went out already).
            halfPair = nil
            if dc == .zero && c0 == half.coefficients && frames > 0 {
                let (_, y1) = m2.step(half.input, SIMD2(left[0], right[0]), &s1, &s2)
                left[0] = y1.x
                right[0] = y1.y
                i = 1
            } else {
                _ = StateUpdate(Self.gains(g: half.coefficients.x, k: half.coefficients.y))
                    .step(half.input, &s1, &s2)
            }
        }
        if dc == .zero {
            // Constant coefficients: two samples a step (the loop-carried chain is one step
            // long for both). Pairs run on from call to call (a last odd sample is finished by
            // the next call), so a split of the stream into calls never changes which samples
            // pair up.
            while frames - i >= 2 {
                let (y0, y1) = m2.step(SIMD2(left[i], right[i]), SIMD2(left[i &+ 1], right[i &+ 1]), &s1, &s2)
                left[i] = y0.x
                right[i] = y0.y
                left[i &+ 1] = y1.x
                right[i &+ 1] = y1.y
                i &+= 2
            }
            if i < frames {
                // The first half of a pair: its output now (the same expression as the pair's
                // first output), the state stays at the pair's start.
                let v0 = SIMD2(left[i], right[i])
                let y0 = m2.firstOutput(v0, s1, s2)
                left[i] = y0.x
                right[i] = y0.y
                halfPair = HalfPair(input: v0, coefficients: c0)
            }
        } else {
            let invLength = 1 / Float(max(length, 1))
            while i < frames {
                let c = c0 + dc * (Float(offset + i) * invLength)
                let v2 = StateUpdate(Self.gains(g: c.x, k: c.y)).step(SIMD2(left[i], right[i]), &s1, &s2)
                left[i] = v2.x
                right[i] = v2.y
                i &+= 1
            }
        }
        ic1eq = s1
        ic2eq = s2
        if Self.isNonFinite(s1, s2) { recover(left: left, right: right, frames: frames) }
    }

    /// A non-finite state would stay non-finite for ever: clear it, count it, and silence this
    /// call's non-finite outputs. From the next sample on, the filter is a fresh one.
    /// - Realtime: safe
    @_noLocks
    mutating func recover(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        reset()
        faultResets &+= 1
        for i in 0..<frames {
            if !left[i].isFinite { left[i] = 0 }
            if !right[i].isFinite { right[i] = 0 }
        }
    }
}

extension LowPass {
    /// Simper's a1, a2, a3 from g and k.
    @_noLocks @inline(__always)
    static func gains(g: Float, k: Float) -> SIMD3<Float> {
        let a1 = 1 / (1 + g * (g + k))
        let a2 = g * a1
        return SIMD3(a1, a2, g * a2)
    }

    /// True when either state holds a NaN or ±Inf (x − x is 0 for every finite x).
    @_noLocks @inline(__always)
    static func isNonFinite(_ s1: SIMD2<Float>, _ s2: SIMD2<Float>) -> Bool {
        let probe = (s1 - s1) + (s2 - s2)
        return probe.x != 0 || probe.y != 0     // NaN != 0 too
    }

    /// One step of Simper's SVF written as a state update (the same recursion, its terms
    /// gathered per state): with v3 = v0 − s2, v1 = a1·s1 + a2·v3, v2 = s2 + a2·s1 + a3·v3 and
    /// s' = 2·v − s,
    ///
    ///     s1' = (2a1 − 1)·s1 − 2a2·s2 + 2a2·v0
    ///     s2' = 2a2·s1 + (1 − 2a3)·s2 + 2a3·v0,     v2 = (s2 + s2')/2.
    ///
    /// Each new state is two products of the old states plus a term of the input alone, so a
    /// sample waits on one multiply and two adds of the previous one (the loop is bound by that
    /// chain, not by the number of operations).
    struct StateUpdate {
        /// Row of s1': coefficients of s1, s2 and v0.
        var s1s1: Float, s1s2: Float, s1v0: Float
        /// Row of s2'.
        var s2s1: Float, s2s2: Float, s2v0: Float

        @_noLocks @inline(__always)
        init(_ a: SIMD3<Float>) {
            s1s1 = 2 * a.x - 1
            s1s2 = -2 * a.y
            s1v0 = 2 * a.y
            s2s1 = 2 * a.y
            s2s2 = 1 - 2 * a.z
            s2v0 = 2 * a.z
        }

        /// The next s1 (unflushed).
        @_noLocks @inline(__always)
        func nextS1(_ v0: SIMD2<Float>, _ s1: SIMD2<Float>, _ s2: SIMD2<Float>) -> SIMD2<Float> {
            (s1v0 * v0 + s1s2 * s2) + s1s1 * s1
        }

        /// The next s2 (unflushed).
        @_noLocks @inline(__always)
        func nextS2(_ v0: SIMD2<Float>, _ s1: SIMD2<Float>, _ s2: SIMD2<Float>) -> SIMD2<Float> {
            (s2v0 * v0 + s2s2 * s2) + s2s1 * s1
        }

        /// One sample of both channels: returns the low-pass output v2 and updates the states
        /// (flushed, `flushed(_:)`).
        @_noLocks @inline(__always)
        func step(_ v0: SIMD2<Float>, _ s1: inout SIMD2<Float>, _ s2: inout SIMD2<Float>) -> SIMD2<Float> {
            let n1 = nextS1(v0, s1, s2), n2 = nextS2(v0, s1, s2)
            let v2 = 0.5 * (s2 + n2)
            s1 = LowPass.flushed(n1)
            s2 = LowPass.flushed(n2)
            return v2
        }
    }

    /// A state with magnitudes below 1e-25 set to zero, so that silent tails never go
    /// subnormal.
    @_noLocks @inline(__always)
    static func flushed(_ x: SIMD2<Float>) -> SIMD2<Float> {
        let tiny = SIMD2<Float>(repeating: 1e-25)
        return x.replacing(with: 0, where: (x .< tiny) .& (x .> -tiny))
    }

    /// The first half of a two-sample step left for the next call.
    struct HalfPair {
        var input: SIMD2<Float>
        var coefficients: SIMD2<Float>
    }

    /// Two samples of `StateUpdate` at once: with s' = A·s + b·v, the state after two
    /// samples is s'' = A²·s + A·b·v0 + b·v1, so the loop waits on one step per two samples;
    /// the state between them (for the first output, v2 = (s2 + s2')/2) is computed beside it.
    /// The same recursion, rounded differently (the products are formed once per call).
    struct TwoStepUpdate {
        let one: StateUpdate
        /// A² (rows of s1'' and s2'' over s1, s2).
        var s1s1: Float, s1s2: Float, s2s1: Float, s2s2: Float
        /// A·b: the first sample's input weight in s1'' and s2''.
        var s1v0: Float, s2v0: Float

        @_noLocks @inline(__always)
        init(_ m: StateUpdate) {
            one = m
            s1s1 = m.s1s1 * m.s1s1 + m.s1s2 * m.s2s1
            s1s2 = m.s1s1 * m.s1s2 + m.s1s2 * m.s2s2
            s2s1 = m.s2s1 * m.s1s1 + m.s2s2 * m.s2s1
            s2s2 = m.s2s1 * m.s1s2 + m.s2s2 * m.s2s2
            s1v0 = m.s1s1 * m.s1v0 + m.s1s2 * m.s2v0
            s2v0 = m.s2s1 * m.s1v0 + m.s2s2 * m.s2v0
        }

        /// Samples v0 then v1 of both channels: returns their outputs and advances the
        /// states by two (flushed like `StateUpdate.step`).
        @_noLocks @inline(__always)
        func step(_ v0: SIMD2<Float>, _ v1: SIMD2<Float>, _ s1: inout SIMD2<Float>, _ s2: inout SIMD2<Float>)
            -> (SIMD2<Float>, SIMD2<Float>) {
            let inputs1 = s1v0 * v0 + one.s1v0 * v1, inputs2 = s2v0 * v0 + one.s2v0 * v1
            let n1 = (inputs1 + s1s2 * s2) + s1s1 * s1
            let n2 = (inputs2 + s2s2 * s2) + s2s1 * s1
            let middle = one.nextS2(v0, s1, s2)
            let y0 = 0.5 * (s2 + middle), y1 = 0.5 * (middle + n2)
            s1 = LowPass.flushed(n1)
            s2 = LowPass.flushed(n2)
            return (y0, y1)
        }

        /// The first output of `step` alone (the same expression), from v0 and the states.
        @_noLocks @inline(__always)
        func firstOutput(_ v0: SIMD2<Float>, _ s1: SIMD2<Float>, _ s2: SIMD2<Float>) -> SIMD2<Float> {
            0.5 * (s2 + one.nextS2(v0, s1, s2))
        }
    }
}

/// Constants of the low-pass.
public enum LowPassTuning {
    /// Highest cutoff as a fraction of the sample rate (0.45: 19.8 kHz at 44.1 kHz), keeping
    /// g = tan(π·fc/fs) finite and the response well-behaved near Nyquist.
    public static let highestCutoffRatio = 0.45
}

extension LowPass: Kernel {}
