import Foundation
import XCTest
import RackDSP
import RackEngine

/// The low-pass, run on sines, against its math over the parameter table: cutoffs and
/// resonances spanning the `cutoff` and `resonance` rows' ranges (both ends included) at 44.1,
/// 48 and 96 kHz; sines from 20 Hz to 20 kHz (and at the cutoff and the edges of its resonance's
/// band) through the filter at each steady setting; the gain fitted by least squares once the
/// filter's slowest natural mode has fallen by e^-20 equals the closed-form transfer function
/// (`magnitudeDecibels`) within 0.01 dB.
final class LowPassTableResponseTests: XCTestCase {
    /// `count` points from `low` to `high`, evenly spaced on a log axis, both ends included.
    func logGrid(_ low: Double, _ high: Double, _ count: Int) -> [Double] {
        (0..<count).map { low * pow(high / low, Double($0) / Double(count - 1)) }
    }

    /// Samples for the slowest natural mode of the filter at (g, k) to fall by e^-20: its poles
    /// are z = (1 + g·p)/(1 − g·p) (the trapezoidal integrator's map), p a root of p² + k·p + 1.
    func settleSamples(_ gk: SIMD2<Double>) -> Int {
        let (g, k) = (gk.x, gk.y), disc = k * k / 4 - 1
        let roots = disc >= 0 ? [(-k / 2 + disc.squareRoot(), 0.0), (-k / 2 - disc.squareRoot(), 0.0)]
            : [(-k / 2, (-disc).squareRoot())]
        let radius = roots.map { (re: Double, im: Double) in
            (((1 + g * re) * (1 + g * re) + g * im * g * im) / ((1 - g * re) * (1 - g * re) + g * im * g * im)).squareRoot()
        }.max()!
        return Int(20 / -log(radius)) + 1
    }

    /// A least-squares fit of y ≈ a·sin φ + b·cos φ: its sums, and the fitted amplitude in dB.
    struct SineFit {
        var ss = 0.0, cc = 0.0, sc = 0.0, ys = 0.0, yc = 0.0
        mutating func add(_ y: Float, phase: Double) {
            let s = sin(phase), c = cos(phase)
            (ss, cc, sc, ys, yc) = (ss + s * s, cc + c * c, sc + s * c, ys + Double(y) * s, yc + Double(y) * c)
        }
        var decibels: Double {
            let det = ss * cc - sc * sc, a = (ys * cc - yc * sc) / det, b = (yc * ss - ys * sc) / det
            return 10 * log10(a * a + b * b)
        }
    }

    /// Gains in dB of `filter` at (g, k) for a sine at `f.0` on the left and one at `f.1` on the
    /// right: run from rest for `settle` samples, then fitted over the next tenth of a second.
    func measuredDecibels(_ filter: inout StateVariableFilter, _ f: (Double, Double), gk: SIMD2<Double>,
                          settle: Int) -> (Double, Double) {
        let rate = filter.sampleRate, total = settle + Int(rate / 10), chunk = 4_096
        var left = [Float](repeating: 0, count: chunk), right = left, fits = (SineFit(), SineFit())
        filter.reset()
        for start in stride(from: 0, to: total, by: chunk) {
            let n = min(chunk, total - start), w = (2 * Double.pi * f.0 / rate, 2 * Double.pi * f.1 / rate)
            for i in 0..<n { (left[i], right[i]) = (Float(sin(w.0 * Double(start + i))), Float(sin(w.1 * Double(start + i)))) }
            left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
                filter.process(left: l.baseAddress!, right: r.baseAddress!, frames: n, from: gk, to: gk, offset: 0, length: n)
            }}
            for i in min(n, max(0, settle - start))..<n {
                fits.0.add(left[i], phase: w.0 * Double(start + i))
                fits.1.add(right[i], phase: w.1 * Double(start + i))
            }
        }
        return (fits.0.decibels, fits.1.decibels)
    }

    func testTheMeasuredLowPassIsItsTransferFunctionOverTheTable() {
        let cutoff = Parameters[.cutoff], resonance = Parameters[.resonance]
        for rate in [44_100.0, 48_000, 96_000] {
            var filter = StateVariableFilter(mode: .lowPass, maximumCutoffHz: cutoff.maximum)
            filter.prepare(sampleRate: rate, maxFrames: 4_096)
            var worst = 0.0, at = ""
            for fc in logGrid(cutoff.minimum, cutoff.maximum, 7) {
                for dB in (0...4).map({ resonance.minimum + (resonance.maximum - resonance.minimum) * Double($0) / 4 }) {
                    let gk = filter.coefficients(cutoffHz: fc, resonanceDecibels: dB), q = pow(10, dB / 20)
                    let band = [fc, fc * (1 - 0.5 / q), fc * (1 + 0.5 / q)].filter { $0 >= 20 && $0 <= 20_000 }
                    var frequencies = logGrid(20, 20_000, 21) + band
                    if frequencies.count % 2 == 1 { frequencies.append(1_000) }
                    let settle = settleSamples(gk)
                    for p in stride(from: 0, to: frequencies.count, by: 2) {
                        let pair = (frequencies[p], frequencies[p + 1])
                        let measured = measuredDecibels(&filter, pair, gk: gk, settle: settle)
                        for (f, m) in [(pair.0, measured.0), (pair.1, measured.1)] {
                            let error = abs(m - filter.magnitudeDecibels(frequencyHz: f, cutoffHz: fc, resonanceDecibels: dB))
                            if error > worst { (worst, at) = (error, "\(f) Hz, cutoff \(fc) Hz, \(dB) dB") }
                        }
                    }
                }
            }
            XCTAssertLessThan(worst, 0.01, "\(rate) Hz: \(worst) dB off at \(at)")
            print("LowPassTableResponseTests: \(rate) Hz, worst \(worst) dB at \(at)")
        }
    }
}
