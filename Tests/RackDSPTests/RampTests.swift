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

    func testRetargetMidRampStartsFromTheCurrentValue() {
        var r = Ramp(value: 0, shape: .linear)
        r.retarget(to: 10, at: 0, frames: 100)
        r.retarget(to: 0, at: 50, frames: 100)
        XCTAssertEqual(r.value(at: 50), 5, accuracy: 1e-12)
        XCTAssertEqual(r.value(at: 100), 2.5, accuracy: 1e-12)
        XCTAssertEqual(r.value(at: 150), 0)
    }
}
