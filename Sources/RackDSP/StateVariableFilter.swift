/// Stereo 2-pole (12 dB/octave) multimode filter: the topology-preserving-transform state-variable
/// filter of V. Zavalishin, "The Art of VA Filter Design" (rev. 2.1.2, 2020), ch. 4: two
/// trapezoidal integrators (states s1, s2) in a zero-delay feedback loop; one state gives the
/// low-, band- and high-pass outputs, `mode` picks one. Each output's gain at the cutoff is the
/// resonance in dB (the AUv3 filter sample's convention): Q = 10^(dB/20), damping k = 2R = 1/Q; the
/// bilinear prewarp g = tan(π·cutoffHz/sampleRate) puts that point on the cutoff (`magnitudeDecibels`).
/// Stable while g and k move at audio rate: they are interpolated per sample across a ramping
/// segment, and steady, two samples run as one step (`PairStep`). A `Kernel`; its guards (a
/// non-finite state resets itself, tails never go subnormal) are in `StateVariableFilter+Guards`.
public struct StateVariableFilter: Sendable {
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
    /// A pair of samples the last call ended half-way through (`PairStep`).
    var half: HalfPair? = nil
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
    public mutating func reset() { (s1, s2, half) = (.zero, .zero, nil) }

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
    /// the segment, runs at `from + (to − from)·(offset + i)/length`. Any split of a segment into
    /// calls gives the same samples. - Realtime: safe
    @_noLocks
    public mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                                 frames: Int, from: SIMD2<Double>, to: SIMD2<Double>, offset: Int, length: Int) {
        let gk0 = SIMD2<Float>(from), dgk = SIMD2<Float>(to - from)
        var i = finishHalf(left, right, frames: frames, steady: dgk == .zero ? gk0 : nil)
        if dgk == .zero {
            processSteady(left, right, from: i, frames: frames, gk: gk0)
        } else {
            let invLength = 1 / Float(max(length, 1))
            var a = s1, b = s2
            while i < frames {
                let gk = gk0 + dgk * (Float(offset &+ i) * invLength)
                let y = Self.tick(SIMD2(left[i], right[i]), &a, &b, g: gk.x, k: gk.y, mode: mode)
                (a, b, left[i], right[i]) = (Self.flushed(a), Self.flushed(b), y.x, y.y)
                i &+= 1
            }
            (s1, s2) = (a, b)
        }
        if Self.isNonFinite(s1, s2) { recover(left: left, right: right, frames: frames) }
    }

    /// One sample of the TPT SVF (Zavalishin ch. 4, the loop solved for the high-pass output):
    /// advances the states s1, s2 and returns `mode`'s output. Generic: the same equations run on
    /// samples (left and right) and on linear forms (`PairStep`). - Realtime: safe
    @_transparent
    static func tick<V: SIMD>(_ x: V, _ s1: inout V, _ s2: inout V, g: V.Scalar, k: V.Scalar, mode: Mode) -> V
    where V.Scalar: BinaryFloatingPoint {
        let yHP = (x - (g + k) * s1 - s2) * (1 / (1 + g * (g + k)))
        let yBP = g * yHP + s1
        let yLP = g * yBP + s2
        s1 = g * yHP + yBP
        s2 = g * yBP + yLP
        switch mode { case .lowPass: return yLP; case .bandPass: return yBP; case .highPass: return yHP }
    }

    /// `tick` on linear forms over (s1, s2, x0, x1): the states' rows (`PairStep`). - Realtime: safe
    @_noLocks
    static func tick(forms x: SIMD4<Double>, _ s1: inout SIMD4<Double>, _ s2: inout SIMD4<Double>, g: Double, k: Double) {
        _ = tick(x, &s1, &s2, g: g, k: k, mode: .lowPass)
    }

    /// One sample's own step at `gk` (its output went out already), the states flushed.
    @_noLocks
    mutating func step(_ x: SIMD2<Float>, gk: SIMD2<Float>) {
        _ = Self.tick(x, &s1, &s2, g: gk.x, k: gk.y, mode: mode)
        (s1, s2) = (Self.flushed(s1), Self.flushed(s2))
    }

    /// The (g, k) of `setting`, memoised. - Realtime: safe
    @_noLocks
    mutating func memoised(_ setting: Setting) -> SIMD2<Double> {
        if setting != memo.setting {
            memo = (setting, coefficients(cutoffHz: setting.cutoffHz, resonanceDecibels: setting.resonanceDecibels))
        }
        return memo.gk
    }
}

extension StateVariableFilter: Kernel {}
