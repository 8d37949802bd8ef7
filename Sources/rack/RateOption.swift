import ArgumentParser
import RackDSP
import RackEngine

/// Refuses a `--rate` outside `SampleRates.supported` (usage error, 64).
func validateSampleRate(_ rate: Double) throws {
    guard SampleRates.supported.contains(rate) else {
        throw ValidationError("--rate must be \(formatNumber(SampleRates.supported.lowerBound))…\(formatNumber(SampleRates.supported.upperBound)) Hz")
    }
}
