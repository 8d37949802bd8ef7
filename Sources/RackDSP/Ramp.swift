/// How a ramp moves between its endpoints.
public enum RampShape: Sendable {
    /// Equal steps in the value: gains in dB, percentages.
    case linear
    /// Equal ratios: frequencies in Hz (a glide sounds even on a log-frequency ear).
    case exponential
}

/// How a ramp moves through time between its endpoints.
public enum RampTiming: Sendable {
    /// At an even pace: the value's path (`RampShape`) is covered at a constant rate.
    case even
    /// Raised-cosine timing: the path is covered at the pace x = (1 − cos πt)/2, t the ramp's
    /// elapsed fraction, so the ramp leaves and reaches its endpoints with zero slope (no kink
    /// at either end; a Hann half-window, F. J. Harris, "On the Use of Windows for Harmonic
    /// Analysis with the Discrete Fourier Transform", Proc. IEEE 66(1), 1978).
    case raisedCosine
}

/// A parameter ramp as a value: its value is a pure function of the absolute sample position,
/// so the same ramp gives the same samples whatever block size the caller renders with.
///
/// - Realtime: safe
public struct Ramp: Sendable {
    public let shape: RampShape
    public let timing: RampTiming
    /// Value at `startSample`.
    public private(set) var startValue: Double
    /// Value reached at `endSample` and held after it.
    public private(set) var target: Double
    /// Absolute sample position where the ramp starts.
    public private(set) var startSample: Int64
    /// Absolute sample position where the ramp arrives (`startSample` when at rest).
    public private(set) var endSample: Int64
    /// log2(target / startValue) for exponential ramps.
    var log2Ratio: Double = 0

    /// A ramp at rest at `value`.
    public init(value: Double, shape: RampShape, timing: RampTiming = .even) {
        self.shape = shape
        self.timing = timing
        startValue = value
        target = value
        startSample = 0
        endSample = 0
    }

    /// Value at the absolute sample position `sample`.
    @_noLocks
    public func value(at sample: Int64) -> Double {
        if sample >= endSample { return target }
        if sample <= startSample { return startValue }
        var t = Double(sample - startSample) / Double(endSample - startSample)
        if timing == .raisedCosine { t = 0.5 - 0.5 * RackMath.cos(RackMath.pi * t) }
        switch shape {
        case .linear: return startValue + (target - startValue) * t
        case .exponential: return startValue * RackMath.exp2(log2Ratio * t)
        }
    }

    /// True while the ramp is still moving at `sample`.
    @_noLocks
    public func isMoving(at sample: Int64) -> Bool { sample < endSample }

    /// Starts a new ramp at `sample` from wherever the current one is then, arriving at `value`
    /// after `frames` samples (`frames` ≤ 0 means at once, used only for setup).
    @_noLocks
    public mutating func retarget(to newTarget: Double, at sample: Int64, frames: Int64) {
        let current = value(at: sample)
        startValue = current
        target = newTarget
        startSample = sample
        endSample = sample + max(0, frames)
        if shape == .exponential && current > 0 && newTarget > 0 {
            log2Ratio = RackMath.log2(newTarget / current)
        } else {
            log2Ratio = 0
        }
        if endSample == startSample || current == newTarget { startValue = newTarget; endSample = sample }
    }
}
