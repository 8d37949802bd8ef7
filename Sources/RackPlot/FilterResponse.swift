import Foundation
import RackDSP
import RackEngine

/// The low-pass filter's magnitude response, from the coefficients the kernel itself computes
/// (`LowPass.coefficients`): the SVF's transfer function is H(s) = 1/(s² + s/Q + 1) mapped by the
/// bilinear transform with prewarp at the cutoff, so at frequency f, with
/// w = tan(πf/fs)/g and g = tan(π·fc/fs): |H|² = 1/((1 − w²)² + (w·k)²), k = 1/Q.
public enum FilterResponse {
    /// |H(f)| in dB for a cutoff (Hz) and resonance (dB) at `sampleRate`. The cutoff is limited
    /// the way the kernel limits it (below Nyquist).
    public static func magnitudeDecibels(frequency f: Double, cutoff: Double, resonance: Double,
                                         sampleRate: Double) -> Double {
        let c = coefficients(cutoff: cutoff, resonance: resonance, sampleRate: sampleRate)
        let w = tan(Double.pi * f / sampleRate) / c.x
        let k = c.y
        let denominator = (1 - w * w) * (1 - w * w) + (w * k) * (w * k)
        return -10 * log10(denominator)
    }

    /// The kernel's (g, k) for these settings.
    static func coefficients(cutoff: Double, resonance: Double, sampleRate: Double) -> SIMD2<Double> {
        var filter = LowPass()
        filter.prepare(sampleRate: sampleRate, maxFrames: 1, maximumCutoffHz: Parameters[.cutoff].maximum)
        return filter.coefficients(cutoffHz: cutoff, resonanceDecibels: resonance)
    }

    /// The highest cutoff the kernel runs at for `sampleRate`.
    public static func maximumCutoff(sampleRate: Double) -> Double {
        var filter = LowPass()
        filter.prepare(sampleRate: sampleRate, maxFrames: 1, maximumCutoffHz: Parameters[.cutoff].maximum)
        return filter.maximumCutoffHz
    }
}

/// One curve of a response plot.
public struct ResponseCurveSpec: Sendable {
    /// Legend name: a preset's name, or a description of the settings.
    public var name: String
    public var cutoff: Double
    public var resonance: Double

    public init(name: String, cutoff: Double, resonance: Double) {
        self.name = name
        self.cutoff = cutoff
        self.resonance = resonance
    }
}
