import Foundation
import XCTest
import RackDSP
import RackEngine
@testable import RackPlot

/// The plot's magnitude function is the state-variable filter's closed-form transfer function.
/// Over every cutoff and resonance the parameter table allows, at 44.1, 48 and 96 kHz, its
/// low-pass equals the response of the filter it replaced (a 2-pole low-pass with Q =
/// 10^(dB/20), the bilinear transform prewarped at the cutoff, the cutoff capped at 0.45·fs) within
/// 0.01 dB from 20 Hz to 20 kHz; its band- and high-pass follow the same prototype's σ/D and σ²/D.
final class FilterResponseGridTests: XCTestCase {
    let rates = [44_100.0, 48_000, 96_000]
    /// The README's cap ("capped at 0.45·fs"), not the kernel's constant.
    let readmeCapRatio = 0.45

    /// `count` points from `low` to `high`, evenly spaced on a log axis, both ends included.
    func logGrid(_ low: Double, _ high: Double, _ count: Int) -> [Double] {
        (0..<count).map { low * pow(high / low, Double($0) / Double(count - 1)) }
    }

    /// The table's cutoffs (log grid, both ends) and resonances (1 dB steps, both ends).
    var settings: [(cutoff: Double, resonance: Double)] {
        let cutoff = Parameters[.cutoff], resonance = Parameters[.resonance]
        let steps = Int((resonance.maximum - resonance.minimum).rounded())
        let resonances = (0...steps).map { resonance.minimum + Double($0) * (resonance.maximum - resonance.minimum) / Double(steps) }
        return logGrid(cutoff.minimum, cutoff.maximum, 40).flatMap { c in resonances.map { (c, $0) } }
    }

    /// The former filter's |H| in dB, as its plot computed it: w = tan(πf/fs)/tan(π·fc/fs),
    /// |H|² = 1/((1 − w²)² + (w/Q)²) (times w² for the band-pass, w⁴ for the high-pass).
    func prototype(_ f: Double, cutoff: Double, resonance: Double, rate: Double, power: Double) -> Double {
        let fc = min(cutoff, readmeCapRatio * rate), q = pow(10, resonance / 20)
        let w = tan(Double.pi * f / rate) / tan(Double.pi * fc / rate)
        return 10 * log10(pow(w, power) / ((1 - w * w) * (1 - w * w) + (w / q) * (w / q)))
    }

    func testTheLowPassEqualsTheFormerFilterOverTheWholeTable() {
        let frequencies = logGrid(20, 20_000, 61)
        for rate in rates {
            var worst = 0.0, at = ""
            for s in settings {
                for f in frequencies {
                    let now = FilterResponse.magnitudeDecibels(frequency: f, cutoff: s.cutoff, resonance: s.resonance, sampleRate: rate)
                    let before = prototype(f, cutoff: s.cutoff, resonance: s.resonance, rate: rate, power: 0)
                    if abs(now - before) > worst { (worst, at) = (abs(now - before), "\(f) Hz, cutoff \(s.cutoff), \(s.resonance) dB") }
                }
            }
            XCTAssertLessThan(worst, 0.01, "\(rate) Hz: \(worst) dB at \(at)")
        }
    }

    func testBandAndHighPassFollowTheirPrototypes() {
        let frequencies = logGrid(20, 20_000, 31)
        for rate in rates {
            for (mode, power) in [(StateVariableFilter.Mode.bandPass, 2.0), (.highPass, 4.0), (.lowPass, 0)] {
                var filter = StateVariableFilter(mode: mode, maximumCutoffHz: Parameters[.cutoff].maximum)
                filter.prepare(sampleRate: rate, maxFrames: 1)
                for s in settings where Int(s.resonance) % 5 == 0 {
                    // Each output's gain at the cutoff is the resonance.
                    if s.cutoff < readmeCapRatio * rate {
                        XCTAssertEqual(filter.magnitudeDecibels(frequencyHz: s.cutoff, cutoffHz: s.cutoff, resonanceDecibels: s.resonance),
                                       s.resonance, accuracy: 1e-6, "\(mode) at its cutoff \(s.cutoff) Hz, \(rate) Hz")
                    }
                    for f in frequencies {
                        let expected = prototype(f, cutoff: s.cutoff, resonance: s.resonance, rate: rate, power: power)
                        XCTAssertEqual(filter.magnitudeDecibels(frequencyHz: f, cutoffHz: s.cutoff, resonanceDecibels: s.resonance),
                                       expected, accuracy: 0.01, "\(mode): \(f) Hz, cutoff \(s.cutoff), \(s.resonance) dB, \(rate) Hz")
                    }
                }
            }
        }
    }
}
