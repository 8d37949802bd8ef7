import Foundation
import XCTest
@testable import RackDSP

final class RampTests: XCTestCase {
    func testLinearRampArrivesExactlyAndStepsEvenly() {
        var r = Ramp(value: 0, shape: .linear)
        r.retarget(to: 12, at: 1000, frames: 960)
        XCTAssertEqual(r.value(at: 999), 0)
        XCTAssertEqual(r.value(at: 1000), 0)
        XCTAssertEqual(r.value(at: 1960), 12)
        XCTAssertEqual(r.value(at: 100_000), 12)
        for t in Int64(1000)..<1960 {
            XCTAssertEqual(r.value(at: t + 1) - r.value(at: t), 12.0 / 960, accuracy: 1e-12)
        }
    }

    func testExponentialRampHasEqualRatios() {
        var r = Ramp(value: 100, shape: .exponential)
        r.retarget(to: 1600, at: 0, frames: 4000)
        XCTAssertEqual(r.value(at: 1000), 200, accuracy: 1e-9)
        XCTAssertEqual(r.value(at: 2000), 400, accuracy: 1e-9)
        XCTAssertEqual(r.value(at: 4000), 1600)
        let ratio = r.value(at: 11) / r.value(at: 10)
        XCTAssertEqual(r.value(at: 3001) / r.value(at: 3000), ratio, accuracy: 1e-12)
    }

    /// Raised-cosine timing: the same endpoints and midpoint as an even ramp, the pace of a Hann
    /// half-window ((1 − cos πt)/2 of the way at t), so the first and last steps are ~0 where
    /// an even ramp's are the mean step (no kink at either end).
    func testRaisedCosineRampLeavesAndArrivesWithoutAKink() {
        var r = Ramp(value: 100, shape: .exponential, timing: .raisedCosine)
        r.retarget(to: 1600, at: 0, frames: 1000)
        XCTAssertEqual(r.value(at: 0), 100)
        XCTAssertEqual(r.value(at: 500), 400, accuracy: 1e-9)
        XCTAssertEqual(r.value(at: 1000), 1600)
        XCTAssertEqual(r.value(at: 250), 100 * pow(16, (1 - cos(Double.pi / 4)) / 2), accuracy: 1e-9)
        var even = Ramp(value: 0, shape: .linear), eased = Ramp(value: 0, shape: .linear, timing: .raisedCosine)
        even.retarget(to: 1, at: 0, frames: 1000)
        eased.retarget(to: 1, at: 0, frames: 1000)
        let mean = even.value(at: 1) - even.value(at: 0)
        XCTAssertLessThan(eased.value(at: 1) - eased.value(at: 0), 0.01 * mean)
        XCTAssertLessThan(eased.value(at: 1000) - eased.value(at: 999), 0.01 * mean)
    }

    func testRetargetMidRampStartsFromTheCurrentValue() {
        var r = Ramp(value: 0, shape: .linear)
        r.retarget(to: 10, at: 0, frames: 100)
        r.retarget(to: 0, at: 50, frames: 100)
        XCTAssertEqual(r.value(at: 50), 5, accuracy: 1e-12)
        XCTAssertEqual(r.value(at: 100), 2.5, accuracy: 1e-12)
        XCTAssertEqual(r.value(at: 150), 0)
    }
}
