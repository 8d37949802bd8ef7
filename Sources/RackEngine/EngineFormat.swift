import RackDSP

/// What an engine can be built for, checked before building one: every caller of
/// `Engine(sampleRate:maxFrames:)` with a rate or a size that came from outside (an audio
/// file, `--rate`, `--block`, the JACK server) asks here first and turns the answer into its
/// own error path (exit 65 offline, one line and 69 live), so the engine's own preconditions
/// can never be reached from input.
public enum EngineFormat {
    /// Largest render call an engine may be prepared for, in frames (`rack render --block`).
    public static let maximumFrames = 65_536

    /// Nil when the engine serves `sampleRate`, else why not (one line, no program name).
    public static func problem(sampleRate: Double) -> String? {
        guard sampleRate.isFinite, SampleRates.supported.contains(sampleRate) else {
            return "a sample rate of \(formatNumber(sampleRate)) Hz is not supported (rack runs at "
                + "\(formatNumber(SampleRates.supported.lowerBound))…\(formatNumber(SampleRates.supported.upperBound)) Hz)"
        }
        return nil
    }

    /// Throws `status` with the reason, naming `what` (a file, a server), when the engine
    /// cannot serve `sampleRate`.
    public static func check(sampleRate: Double, of what: String, status: ExitStatus) throws(RackError) {
        if let problem = problem(sampleRate: sampleRate) { throw RackError(status, "\(what): \(problem)") }
    }
}
