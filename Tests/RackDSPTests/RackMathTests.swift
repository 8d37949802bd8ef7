import Foundation
import XCTest
@testable import RackDSP

/// The pure-Swift elementary functions against the C library.
final class RackMathTests: XCTestCase {
    func testExp2AndLog2MatchLibm() {
        var x = -60.0
        while x <= 60 {
            XCTAssertEqual(RackMath.exp2(x), Foundation.exp2(x), accuracy: Foundation.exp2(x) * 4e-15, "exp2(\(x))")
            x += 0.0173
        }
        for v in [1e-9, 0.001, 0.5, 0.7071, 1, 1.4142, 2, 3, 12, 440, 20_000, 1e12] {
            XCTAssertEqual(RackMath.log2(v), Foundation.log2(v), accuracy: 1e-13, "log2(\(v))")
        }
        XCTAssertEqual(RackMath.log2(0), -.infinity)
        XCTAssertTrue(RackMath.log2(-1).isNaN)
    }

    func testTrigonometryMatchesLibm() {
        var x = -10.0
        while x <= 10 {
            let sc = RackMath.sincos(x)
            XCTAssertEqual(sc.sin, Foundation.sin(x), accuracy: 1e-14)
            XCTAssertEqual(sc.cos, Foundation.cos(x), accuracy: 1e-14)
            x += 0.0071
        }
        // tan over the filter's whole range: π·fc/fs for fc up to 0.45·fs.
        var w = 1e-5
        while w < RackMath.pi * 0.45 {
            XCTAssertEqual(RackMath.tan(w), Foundation.tan(w), accuracy: Foundation.tan(w) * 1e-13)
            w *= 1.01
        }
    }

    func testDecibelsToGain() {
        for db in stride(from: -60.0, through: 20, by: 0.5) {
            XCTAssertEqual(RackMath.gain(decibels: db), Foundation.pow(10, db / 20), accuracy: Foundation.pow(10, db / 20) * 1e-14)
        }
    }
}
