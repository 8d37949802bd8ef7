/// The sample rates rack supports, everywhere: the engine, the reverb, `rack render --rate` and
/// `rack plot --rate`.
public enum SampleRates {
    /// The supported range, in Hz: 8 kHz to 384 kHz. (At 8 kHz every delay of the reverb is
    /// still at least 8 samples, which its 8-sample groups need.)
    public static let supported: ClosedRange<Double> = 8_000...384_000
}
