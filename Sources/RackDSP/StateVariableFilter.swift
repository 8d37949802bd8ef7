/// Stereo 2-pole (12 dB/octave) multimode filter: the topology-preserving-transform state-variable
/// filter of V. Zavalishin, "The Art of VA Filter Design" (rev. 2.1.2, 2020), ch. 4: two
/// trapezoidal integrators (states s1, s2) in a zero-delay feedback loop; one state gives the
/// low-, band- and high-pass outputs, `mode` picks one. Each output's gain at the cutoff is the
/// resonance in dB (the AUv3 filter sample's convention): Q = 10^(dB/20), damping k = 2R = 1/Q; the
/// bilinear prewarp g = tan(π·cutoffHz/sampleRate) puts that point on the cutoff (`magnitudeDecibels`).
/// As JUCE's `StateVariableTPTFilter`: a setting's factors are worked out once (`Step`), a sample
/// is a few lines. Stable while g and k move at audio rate (interpolated per sample across a
/// ramping segment). Guards: tails never go subnormal, and a state gone non-finite (a NaN or
/// ±Inf got in) is found at the end of the call and the filter starts afresh.
public struct StateVariableFilter: Kernel, Sendable {
    /// Which of the filter's outputs `process` writes.
    public enum Mode: Sendable, CaseIterable { case lowPass, bandPass, highPass }

    /// One call's work: `buffers` filtered in place over part of a control segment of `length`
    /// samples, the settings moving from `from` to `to` across it; the call starts `offset` into it.
    public struct Block {
        public var buffers: StereoBuffers
        public var from: Setting, to: Setting
        public var offset: Int, length: Int
        /// - Realtime: safe
        @_noLocks @inline(__always)
        public init(buffers: StereoBuffers, from: Setting, to: Setting, offset: Int, length: Int) {
            (self.buffers, self.from, self.to, self.offset, self.length) = (buffers, from, to, offset, length)
        }
    }

    /// The filter's settings in parameter units: cutoff in Hz, resonance in dB.
    public struct Setting: Sendable, Equatable {
        public var cutoffHz: Double, resonanceDecibels: Double
        /// - Realtime: safe
        @_noLocks @inline(__always)
        public init(cutoffHz: Double, resonanceDecibels: Double) {
            (self.cutoffHz, self.resonanceDecibels) = (cutoffHz, resonanceDecibels)
        }
    }
    /// Highest cutoff over the sample rate (0.45: 19.8 kHz at 44.1 kHz): g = tan(π·fc/fs) finite.
    public static let highestCutoffRatio = 0.45

    /// The output `process` writes.
    public var mode: Mode
    /// The integrators' states (Zavalishin's s1, s2), left and right in one vector.
    var s1 = SIMD2<Float>.zero, s2 = SIMD2<Float>.zero
    public private(set) var sampleRate: Double = 48_000
    /// Times the state went non-finite (a NaN or ±Inf got in) and the filter reset itself.
    public internal(set) var faultResets = 0
    /// Highest cutoff in Hz: the caller's cap, lowered to `highestCutoffRatio · sampleRate`.
    public private(set) var maximumCutoffHz: Double = highestCutoffRatio * 48_000
    /// The caller's cap on the cutoff in Hz (the parameter table's maximum).
    private let cutoffCapHz: Double
    /// The last setting converted, and its (g, k).
    private var memo = (setting: Setting(cutoffHz: .nan, resonanceDecibels: .nan), gk: SIMD2<Double>.zero)

    /// A filter giving `mode`, its cutoff never above `maximumCutoffHz` at any rate.
    public init(mode: Mode = .lowPass, maximumCutoffHz: Double = .infinity) {
        (self.mode, cutoffCapHz) = (mode, maximumCutoffHz)
    }

    /// Sets the rate and the highest cutoff; clears the state and the memo. Allocates nothing.
    public mutating func prepare(sampleRate: Double, maxFrames: Int) {
        self.sampleRate = sampleRate
        maximumCutoffHz = min(cutoffCapHz, Self.highestCutoffRatio * sampleRate)
        memo.setting = Setting(cutoffHz: .nan, resonanceDecibels: .nan)
        reset()
    }

    /// Clears the integrators. - Realtime: safe
    @_noLocks
    public mutating func reset() { (s1, s2) = (.zero, .zero) }

    /// Zavalishin's (g, k) for a cutoff in Hz (held to 1 Hz … `maximumCutoffHz`) and a resonance
    /// in dB. - Realtime: safe
    @_noLocks
    public func coefficients(cutoffHz: Double, resonanceDecibels: Double) -> SIMD2<Double> {
        let fc = min(max(cutoffHz, 1), maximumCutoffHz)
        return SIMD2(RackMath.tan(RackMath.pi * fc / sampleRate), 1 / RackMath.gain(decibels: resonanceDecibels))
    }

    /// Filters one block in place, its settings converted through the memo. - Realtime: safe
    @_noLocks
    public mutating func process(_ block: Block) {
        let from = memoised(block.from), to = memoised(block.to)
        process(left: block.buffers.left, right: block.buffers.right, frames: block.buffers.frames,
                from: from, to: to, offset: block.offset, length: block.length)
    }

    /// Filters `frames` samples in place, (g, k) moving linearly across a control segment of
    /// `length` samples from `from` to `to`: sample i of this call, which starts `offset` into
    /// the segment, runs at `from + (to − from)·(offset + i)/length`. Each sample is one step, so
    /// any split of a segment into calls gives the same samples. A non-finite state is cleared
    /// and counted, this call's non-finite outputs silenced. - Realtime: safe
    @_noLocks
    public mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                                 frames: Int, from: SIMD2<Double>, to: SIMD2<Double>, offset: Int, length: Int) {
        let gk0 = SIMD2<Float>(from), dgk = SIMD2<Float>(to - from), mode = mode
        var a = s1, b = s2
        if dgk == .zero {
            let step = Step(gk0)
            for i in 0..<frames { (left[i], right[i]) = step(left[i], right[i], &a, &b, mode) }
        } else {
            let invLength = 1 / Float(max(length, 1))
            for i in 0..<frames {
                (left[i], right[i]) = Step(gk0 + dgk * (Float(offset &+ i) * invLength))(left[i], right[i], &a, &b, mode)
            }
        }
        (s1, s2) = (a, b)
        let probe = (a - a) + (b - b)       // 0 for finite states; NaN otherwise (NaN != 0)
        guard probe.x != 0 || probe.y != 0 else { return }
        (s1, s2, faultResets) = (.zero, .zero, faultResets &+ 1)
        for i in 0..<frames { (left[i], right[i]) = (left[i].isFinite ? left[i] : 0, right[i].isFinite ? right[i] : 0) }
    }

    /// One sample's step at (g, k), its factors worked out once (JUCE's `update`). The loop
    /// solved for the high-pass, yHP = h·(x − (g + k)·s1 − s2) with h = 1/(1 + g·(g + k)), and
    /// each integrator's s' = 2y − s give s1' = s1 + 2g·yHP, s2' = s2 + 2g·yBP; on v = x − s2,
    /// s1' = (s1 − d·s1) + u·v and s2' = (s2 + u·s1) + w·v (u = 2gh, w = g·u, d = u·(g + k)): a
    /// sample waits on a multiply and two adds of the last, and each state moves by a small step.
    struct Step {
        let u: Float, w: Float, d: Float, k: Float
        /// - Realtime: safe
        @_noLocks @inline(__always)
        init(_ gk: SIMD2<Float>) {
            let g = gk.x, k = gk.y, u = 2 * g / (1 + g * (g + k))
            (self.u, w, d, self.k) = (u, g * u, u * (g + k), k)
        }
        /// Advances the states by a left and a right sample; returns `mode`'s outputs. An
        /// integrator's output is the mean of its states either side, y = (s + s')/2, and
        /// yHP = x − k·yBP − yLP. A state below 1e-25 in magnitude becomes 0, so that silent tails
        /// never go subnormal. - Realtime: safe
        @_noLocks @inline(__always)
        func callAsFunction(_ left: Float, _ right: Float, _ s1: inout SIMD2<Float>, _ s2: inout SIMD2<Float>,
                            _ mode: Mode) -> (Float, Float) {
            let x = SIMD2(left, right), v = x - s2
            let n1 = (s1 - d * s1) + u * v, n2 = (s2 + u * s1) + w * v
            let yBP = 0.5 * (s1 + n1), yLP = 0.5 * (s2 + n2), tiny = SIMD2<Float>(repeating: 1e-25)
            s1 = n1.replacing(with: 0, where: (n1 .< tiny) .& (n1 .> -tiny))
            s2 = n2.replacing(with: 0, where: (n2 .< tiny) .& (n2 .> -tiny))
            let y = switch mode { case .lowPass: yLP; case .bandPass: yBP; case .highPass: (x - k * yBP) - yLP }
            return (y.x, y.y)
        }
    }

    /// The (g, k) of `setting`, memoised. - Realtime: safe
    @_noLocks
    mutating func memoised(_ s: Setting) -> SIMD2<Double> {
        if s != memo.setting { memo = (s, coefficients(cutoffHz: s.cutoffHz, resonanceDecibels: s.resonanceDecibels)) }
        return memo.gk
    }
}
