import XCTest
@testable import RackDSP

/// The reverb's loop stages and the 8×8 transposes, against their definitions.
final class ReverbStagesTests: XCTestCase {
    /// A block whose vector i, lane j holds 8·i + j (+ an offset).
    static func block(_ offset: Float = 0) -> Block8 {
        Block8 { i in SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7) + Float(8 * i) + offset }
    }

    func testTransposeSwapsVectorsAndLanes() {
        let b = Self.block()
        let t = b.transposed()
        for i in 0..<8 {
            for j in 0..<8 { XCTAssertEqual(t[i][j], b[j][i]) }
        }
        let back = t.transposed()
        for i in 0..<8 { XCTAssertEqual(back[i], b[i]) }
    }

    /// hadamard8 is the Sylvester–Hadamard matrix H[i][j] = (−1)^popcount(i & j) applied
    /// across the eight vectors (exact here: small integers).
    func testHadamard8IsTheSylvesterMatrix() {
        let x = Self.block(-20)
        let y = hadamard8(x)
        for i in 0..<8 {
            var expected = SIMD8<Float>.zero
            for j in 0..<8 {
                expected += ((i & j).nonzeroBitCount % 2 == 0 ? 1 : -1) * x[j]
            }
            XCTAssertEqual(y[i], expected, "line \(i)")
        }
        // Orthogonal up to its scale: H·H = 8·I.
        let twice = hadamard8(y)
        for i in 0..<8 { XCTAssertEqual(twice[i], 8 * x[i]) }
    }

    /// The diffuser's loop, run sample by sample with a delay of M, is an allpass: its impulse
    /// response has unit energy, and it is −g, then (1 − g²)·g^(k−1) at k·M.
    func testDiffuserIsASchroederAllpass() {
        let g: Float = 0.6
        let diffuser = Diffuser(coefficient: SIMD8(repeating: g))
        let m = 3, n = 200
        var ring = [Float](repeating: 0, count: n + m)
        var out = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let (w, v) = diffuser.process(SIMD8(repeating: i == 0 ? 1 : 0),
                                          delayed: SIMD8(repeating: ring[i]))
            ring[i + m] = w[0]
            out[i] = v[0]
        }
        XCTAssertEqual(out[0], -g)
        XCTAssertEqual(out[m], 1 - g * g, accuracy: 1e-7)
        XCTAssertEqual(out[2 * m], (1 - g * g) * g, accuracy: 1e-7)
        XCTAssertEqual(out.reduce(0) { $0 + Double($1 * $1) }, 1, accuracy: 1e-6)
    }

    /// The absorber's DC gain: the low shelf gives gain + shelf, the damping one-pole has unity
    /// DC gain once (1 − b) is folded into both.
    func testAbsorberSettlesToItsDCGain() {
        let b: Float = 0.3, gain: Float = 0.5, shelf: Float = 0.1
        let absorber = Absorber(crossover: SIMD8(repeating: 0.05), gain: SIMD8(repeating: (1 - b) * gain),
                                shelf: SIMD8(repeating: (1 - b) * shelf), pole: SIMD8(repeating: b))
        var low = SIMD8<Float>.zero, damped = SIMD8<Float>.zero
        var y = SIMD8<Float>.zero
        for _ in 0..<2000 { y = absorber.process(SIMD8(repeating: 1), low: &low, damped: &damped) }
        for lane in 0..<8 { XCTAssertEqual(y[lane], gain + shelf, accuracy: 1e-5) }
    }
}
