import ArgumentParser
import RackEngine

// Defaults and limits the commands share, each stated once.

/// Sample rates, in Hz, that `rack render --rate` and `rack plot --rate` accept.
let supportedSampleRates: ClosedRange<Double> = 8000...384_000

/// Refuses a `--rate` outside `supportedSampleRates` (usage error, 64).
func validateSampleRate(_ rate: Double) throws {
    guard supportedSampleRates.contains(rate) else {
        throw ValidationError("--rate must be \(formatNumber(supportedSampleRates.lowerBound))…\(formatNumber(supportedSampleRates.upperBound)) Hz")
    }
}
