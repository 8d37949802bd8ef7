import RackDSP
import RackEngine

/// The low-pass filter's magnitude response: the kernel's own
/// (`StateVariableFilter.magnitudeDecibels`, the closed-form transfer function of the TPT SVF), for
/// the engine's filter (its low-pass mode, its cutoff capped by the parameter table's maximum).
public enum FilterResponse {
    /// |H(f)| in dB for a cutoff (Hz) and resonance (dB) at `sampleRate`. The cutoff is limited
    /// the way the kernel limits it (below Nyquist).
    public static func magnitudeDecibels(frequency f: Double, cutoff: Double, resonance: Double,
                                         sampleRate: Double) -> Double {
        filter(sampleRate: sampleRate).magnitudeDecibels(frequencyHz: f, cutoffHz: cutoff, resonanceDecibels: resonance)
    }

    /// The highest cutoff the kernel runs at for `sampleRate`.
    public static func maximumCutoff(sampleRate: Double) -> Double {
        filter(sampleRate: sampleRate).maximumCutoffHz
    }

    /// The engine's filter, prepared for `sampleRate`.
    static func filter(sampleRate: Double) -> StateVariableFilter {
        var filter = StateVariableFilter(mode: .lowPass, maximumCutoffHz: Parameters[.cutoff].maximum)
        filter.prepare(sampleRate: sampleRate, maxFrames: 1)
        return filter
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
