import Foundation
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

    /// With absorption a the diffuser's echoes decay by a per pass of its delay: −g, then
    /// a·(1 − g²)·(a·g)^(k−1) at k·M — the decay over the diffuser's own delay.
    func testAbsorbentDiffuserDecaysOverItsOwnDelay() {
        let g: Float = 0.5, a: Float = 0.9
        let diffuser = Diffuser(coefficient: SIMD8(repeating: g), absorption: SIMD8(repeating: a))
        let m = 3, n = 40
        var ring = [Float](repeating: 0, count: n + m)
        var out = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let (w, v) = diffuser.process(SIMD8(repeating: i == 0 ? 1 : 0), delayed: SIMD8(repeating: ring[i]))
            ring[i + m] = w[0]
            out[i] = v[0]
        }
        XCTAssertEqual(out[0], -g)
        for k in 1..<10 {
            XCTAssertEqual(out[k * m], a * (1 - g * g) * pow(a * g, Float(k - 1)), accuracy: 1e-6, "echo \(k)")
        }
    }

    /// The DC blocker over a group equals its recursion y = c·(x − x₋₁) + R·y₋₁ run sample by
    /// sample; it removes DC entirely, passes Nyquist at unity and is −3 dB near its corner.
    func testDCBlockerIsTheOnePoleHighPass() {
        let fs = 48_000.0, cutoff = 15.0
        let blocker = DCBlocker(cutoff: cutoff, sampleRate: fs)
        let r = Float(RackMath.exp2(-2 * RackMath.pi * cutoff / fs / RackMath.ln2)), c = (1 + r) / 2
        let x = ImpulseResponseAnalysis.noise(count: 800, seed: 7)
        var state = SIMD2<Float>(0, 0)
        var xPrev: Float = 0, yPrev: Float = 0
        for group in 0..<100 {
            var v = SIMD8<Float>()
            for j in 0..<8 { v[j] = x[8 * group + j] }
            let y = blocker.process(v, state: &state)
            for j in 0..<8 {
                let expected = c * (v[j] - xPrev) + r * yPrev
                xPrev = v[j]; yPrev = expected
                XCTAssertEqual(y[j], expected, accuracy: 1e-5)
            }
        }
        func settledGain(_ input: (Int) -> Float, periods: Int) -> Float {
            var s = SIMD2<Float>(0, 0), peak: Float = 0
            for group in 0..<periods {
                var v = SIMD8<Float>()
                for j in 0..<8 { v[j] = input(8 * group + j) }
                let y = blocker.process(v, state: &s)
                if group >= periods - 200 { peak = max(peak, y.max(), -y.min()) }
            }
            return peak
        }
        XCTAssertLessThan(settledGain({ _ in 1 }, periods: 60_000), 1e-4)              // DC: gone
        XCTAssertEqual(settledGain({ $0 % 2 == 0 ? 1 : -1 }, periods: 2_000), 1, accuracy: 1e-4)
        let corner = settledGain({ Float(sin(2 * Double.pi * cutoff * Double($0) / fs)) }, periods: 60_000)
        XCTAssertEqual(corner, Float(0.5.squareRoot()), accuracy: 0.01)
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
