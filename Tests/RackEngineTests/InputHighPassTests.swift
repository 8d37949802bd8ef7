import Foundation
import XCTest
import RackDSP
@testable import RackEngine

/// The input high-pass (`hpcut`) against the 2-pole high-pass formula: the bilinear transform of
/// H(s) = s² / (s² + s/Q + 1) with Q = 1/√2 (Butterworth), its cutoff prewarped, so at frequency f
/// |H|² = Ω⁴ / ((1 − Ω²)² + Ω²/Q²), Ω = tan(π·f/fs) / tan(π·fc/fs).
final class InputHighPassTests: XCTestCase {
    let rate = 48_000.0

    /// The formula's |H| in dB of a 2-pole high-pass (or, `lowPass`, low-pass: Ω² in place of
    /// Ω⁴) at `f` for cutoff `fc` and quality `q`.
    func formulaDecibels(_ f: Double, cutoff fc: Double, q: Double, lowPass: Bool = false) -> Double {
        let w = tan(Double.pi * f / rate) / tan(Double.pi * fc / rate)
        let numerator = lowPass ? 1 : w * w * w * w
        let power = numerator / ((1 - w * w) * (1 - w * w) + w * w / (q * q))
        return 10 * log10(power)
    }

    /// The dry path's level in dB of a sine at `f` through a rack at `hpcut` (mix 0, the rest
    /// at defaults): a least-squares fit of sine and cosine at `f` over the last second of two.
    func measuredDecibels(_ f: Double, hpcut: Double) throws -> Double {
        let row = try XCTUnwrap(Parameters.named("hpcut"), "the table has an hpcut row")
        var state = RackState()
        state[row.id] = hpcut
        state[.mix] = 0
        let count = Int(2 * rate)
        let input = (0..<count).map { Float(0.5 * sin(2 * Double.pi * f * Double($0) / rate)) }
        let out = renderEngine(input: input, block: 512, state: state).left
        var ss = 0.0, cc = 0.0, sc = 0.0, ys = 0.0, yc = 0.0
        for i in (count / 2)..<count {
            let s = sin(2 * Double.pi * f * Double(i) / rate), c = cos(2 * Double.pi * f * Double(i) / rate)
            let y = Double(out[i])
            ss += s * s; cc += c * c; sc += s * c; ys += y * s; yc += y * c
        }
        let det = ss * cc - sc * sc
        let a = (ys * cc - yc * sc) / det, b = (yc * ss - ys * sc) / det
        return 20 * log10((a * a + b * b).squareRoot() / 0.5)
    }

    /// The low-pass at its defaults (20 kHz, 0 dB: Q = 1) is in the path too: its formula joins.
    func expectedDecibels(_ f: Double, hpcut: Double) -> Double {
        formulaDecibels(f, cutoff: hpcut, q: 1 / 2.0.squareRoot())
            + formulaDecibels(f, cutoff: Parameters[.cutoff].defaultValue, q: 1, lowPass: true)
    }

    func testTheMagnitudeResponseIsTheTwoPoleHighPassWithinAHundredthOfADecibel() throws {
        for cutoff in [30.0, 200, 1000] {
            for f in [cutoff / 2, cutoff, cutoff * 2, cutoff * 8] {
                let measured = try measuredDecibels(f, hpcut: cutoff)
                XCTAssertEqual(measured, expectedDecibels(f, hpcut: cutoff), accuracy: 0.01, "\(f) Hz at hpcut \(cutoff) Hz")
            }
            XCTAssertEqual(try measuredDecibels(cutoff, hpcut: cutoff), -3.01, accuracy: 0.02, "Butterworth: −3 dB at the cutoff")
        }
    }

    func testRumbleAt20HzFallsByFortyDecibelsAtHpcut200() throws {
        let measured = try measuredDecibels(20, hpcut: 200)
        XCTAssertEqual(measured, expectedDecibels(20, hpcut: 200), accuracy: 0.01)
        XCTAssertEqual(measured, -40.0, accuracy: 0.05)
    }

    func testAtItsMinimumTheStageIsOff() throws {
        let row = try XCTUnwrap(Parameters.named("hpcut"))
        XCTAssertEqual(row.defaultValue, row.minimum)
        // A 20 Hz sine at the default: nothing but the low-pass at 20 kHz (a 10 Hz high-pass
        // would take 0.26 dB).
        XCTAssertEqual(try measuredDecibels(20, hpcut: row.minimum),
                       formulaDecibels(20, cutoff: Parameters[.cutoff].defaultValue, q: 1, lowPass: true), accuracy: 0.001)
    }
}
