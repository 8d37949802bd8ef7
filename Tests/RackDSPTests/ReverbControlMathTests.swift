import Foundation
import XCTest
@testable import RackDSP

/// The control-rate remakes of the reverb (`ReverbControlMath`, `LineAbsorptionFactors`,
/// `ReverbCoefficients.shape`) against the C library and against the design's own maths.
final class ReverbControlMathTests: XCTestCase {
    func testElementaryFunctionsMatchLibm() {
        var x = -60.0
        while x <= 60 {
            XCTAssertEqual(ReverbControlMath.exp2(x), Foundation.exp2(x), accuracy: Foundation.exp2(x) * 4e-15, "exp2(\(x))")
            x += 0.0173
        }
        XCTAssertEqual(ReverbControlMath.exp2(-2000), 0)
        for start in stride(from: -60.0, to: 60, by: 0.37) {
            let lanes = SIMD8<Double>(0, 0.11, 0.5, 0.77, 1.5, 2.25, 3.3, 9.1) + start
            let vector = ReverbControlMath.exp2(lanes)
            for i in 0..<8 {
                XCTAssertEqual(vector[i], Foundation.exp2(lanes[i]), accuracy: Foundation.exp2(lanes[i]) * 4e-15, "exp2(\(lanes[i])) as a lane")
            }
        }
        XCTAssertTrue(ReverbControlMath.exp2(.nan).isNaN)
        for v in [1e-9, 0.001, 0.5, 0.7071, 1, 1.4142, 2, 3, 12, 440, 20_000, 1e12] {
            XCTAssertEqual(ReverbControlMath.log2(v), Foundation.log2(v), accuracy: 1e-13, "log2(\(v))")
        }
        XCTAssertEqual(ReverbControlMath.log2(0), -.infinity)
        XCTAssertTrue(ReverbControlMath.log2(-1).isNaN)
        x = -10
        while x <= 10 {
            let sc = ReverbControlMath.sincos(x)
            XCTAssertEqual(sc.sin, Foundation.sin(x), accuracy: 1e-14, "sin(\(x))")
            XCTAssertEqual(sc.cos, Foundation.cos(x), accuracy: 1e-14, "cos(\(x))")
            x += 0.0137
        }
        x = 0
        while x < 1.55 {
            XCTAssertEqual(ReverbControlMath.tan(x), Foundation.tan(x), accuracy: Foundation.tan(x) * 1e-14 + 1e-16, "tan(\(x))")
            x += 0.0071
        }
        var v = 1e-12
        while v < 1e14 {
            XCTAssertEqual(ReverbControlMath.squareRoot(v), v.squareRoot(), accuracy: v.squareRoot() * 4.5e-16, "√\(v)")
            v *= 1.37
        }
        v = 1e-12
        while v < 1e14 {
            let lanes = SIMD8<Double>(1, 1.1, 1.5, 2, 2.9, 3.3, 5.7, 9.99) * v
            let roots = ReverbControlMath.squareRoot(lanes)
            for i in 0..<8 {
                XCTAssertEqual(roots[i], lanes[i].squareRoot(), accuracy: lanes[i].squareRoot() * 4.5e-16, "√\(lanes[i]) as a lane")
            }
            v *= 3.7
        }
        XCTAssertEqual(ReverbControlMath.squareRoot(SIMD8<Double>(0, -1, -0.0, 4, -1e-300, 1e-300, 9, 16)),
                       SIMD8<Double>(0, 0, 0, 2, 0, 1e-150, 3, 4))
        XCTAssertEqual(ReverbControlMath.squareRoot(0), 0)
        XCTAssertEqual(ReverbControlMath.squareRoot(-1), 0)
    }

    /// Every room at 44.1, 48 and 96 kHz, over the decay grid and damping from 500 Hz to off:
    /// the absorption `shape` remakes (a decay move, then a damping move: the poles, and the
    /// gains for the damping correction's mid-band T60) is `LineAbsorption.init`'s for the same
    /// T60s to double rounding, and the kernel's Float
    /// coefficients are within one Float step of it.
    func testShapedAbsorptionIsTheDesignMaths() {
        var worstGain = 0.0, worstPole = 0.0
        for room in Room.allCases {
            for rate in [44_100.0, 48_000, 96_000] {
                for decay in [0.1, 0.3, 1, 2.5, 7, 30] {
                    var c = ReverbCoefficients(room: room, sampleRate: rate)
                    c.shape(decaySeconds: decay, dampingHz: 20_000, frozen: false)
                    for damping in [500.0, 2_000, room.shape.dampingHz * 1.01, 9_000, 19_000] {
                        c.shape(decaySeconds: decay, dampingHz: damping, frozen: false)
                        let mid = c.midDecaySeconds(decaySeconds: decay, dampingHz: damping)
                        let reference = LineAbsorption(
                            midDecaySeconds: mid, lowDecaySeconds: mid * c.lowRatio,
                            halfDecayHz: min(c.halfDecayPerDamping * damping, 0.5 * rate), sampleRate: rate,
                            lineDelay: c.lineDelay, diffuserDelay: c.diffuserDelay)
                        for i in 0..<8 {
                            let a = c.absorption, r = reference
                            worstGain = max(worstGain, abs(a.midGain[i] / r.midGain[i] - 1), abs(a.diffuser[i] / r.diffuser[i] - 1),
                                            abs(a.lowShelf[i] - r.lowShelf[i]) / r.midGain[i])
                            worstPole = max(worstPole, abs(a.pole[i] - r.pole[i]))
                            let gain = Float(r.midGain[i] / r.diffuser[i] * c.invRoot8)
                            XCTAssertEqual(c.gain[i], gain, accuracy: gain.ulp, "\(room.name) \(rate) \(decay) s \(damping) Hz")
                            XCTAssertEqual(c.damping[i], Float(r.pole[i]), accuracy: Float(r.pole[i]).ulp + 1e-9,
                                           "\(room.name) \(rate) \(decay) s \(damping) Hz")
                        }
                    }
                }
            }
        }
        XCTAssertLessThan(worstGain, 1e-12)
        XCTAssertLessThan(worstPole, 1e-11)
        print("ReverbControlMathTests: worst relative gain difference \(worstGain), worst pole difference \(worstPole)")
    }

    /// Shaped away and back, a room's loops are its design again, bit for bit.
    func testShapingBackToTheOwnValuesRestoresTheDesign() {
        for room in Room.allCases {
            let design = ReverbCoefficients(room: room, sampleRate: 48_000)
            var c = design
            c.shape(decaySeconds: 4.2, dampingHz: 1_700, frozen: false)
            XCTAssertNotEqual(c.gain, design.gain, room.name)
            c.shape(decaySeconds: room.shape.decaySeconds, dampingHz: 3_000, frozen: false)
            c.shape(decaySeconds: room.shape.decaySeconds, dampingHz: room.shape.dampingHz, frozen: false)
            XCTAssertEqual(c.gain, design.gain, room.name)
            XCTAssertEqual(c.lowShelf, design.lowShelf, room.name)
            XCTAssertEqual(c.damping, design.damping, room.name)
            XCTAssertEqual(c.dampedGain, design.dampedGain, room.name)
            XCTAssertEqual(c.dampedShelf, design.dampedShelf, room.name)
            XCTAssertEqual(c.diffuserAbsorption, design.diffuserAbsorption, room.name)
        }
    }
}
