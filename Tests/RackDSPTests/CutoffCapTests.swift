import XCTest
@testable import RackDSP

/// The README: the cutoff is "capped at 0.45·fs". Measured on the filter's own coefficients: at
/// rates where 0.45·fs is below the parameter's 20 kHz maximum, asking for 20 kHz gives the
/// coefficient of 0.45·fs exactly, while a cutoff a little below 0.45·fs is still its own.
final class CutoffCapTests: XCTestCase {
    /// The README's figure, not the kernel's constant.
    let readmeCapRatio = 0.45

    func testTheCutoffIsCappedAtTheReadmeFractionOfTheRate() {
        for rate in [8_000.0, 22_050.0, 32_000.0, 44_100.0] {
            var filter = StateVariableFilter(maximumCutoffHz: 20_000)
            filter.prepare(sampleRate: rate, maxFrames: 64)
            let cap = readmeCapRatio * rate
            XCTAssertLessThan(cap, 20_000)
            let asked = filter.coefficients(cutoffHz: 20_000, resonanceDecibels: 0)
            XCTAssertEqual(asked, filter.coefficients(cutoffHz: cap, resonanceDecibels: 0),
                           "\(rate) Hz: 20 kHz does not run at 0.45·fs = \(cap) Hz")
            XCTAssertEqual(asked.x, tan(Double.pi * readmeCapRatio), accuracy: 1e-9 * asked.x,
                           "\(rate) Hz: g is not tan(π·0.45)")
            let below = filter.coefficients(cutoffHz: 0.99 * cap, resonanceDecibels: 0)
            XCTAssertLessThan(below.x, asked.x, "\(rate) Hz: a cutoff below 0.45·fs is capped too")
        }
        // At 48 kHz 0.45·fs is 21.6 kHz: the parameter's 20 kHz is not capped.
        var filter = StateVariableFilter(maximumCutoffHz: 20_000)
        filter.prepare(sampleRate: 48_000, maxFrames: 64)
        XCTAssertEqual(filter.coefficients(cutoffHz: 20_000, resonanceDecibels: 0).x,
                       tan(Double.pi * 20_000 / 48_000), accuracy: 1e-9)
    }
}
