import Foundation
import RackEngine

/// Tick positions and labels for the plots' axes.
enum Ticks {
    /// A "nice" step (1, 2, 2.5 or 5 × 10ⁿ) giving about `target` intervals over `span`.
    static func niceStep(span: Double, target: Int) -> Double {
        guard span > 0, span.isFinite else { return 1 }
        let raw = span / Double(max(1, target))
        let magnitude = pow(10, floor(log10(raw)))
        for m in [1.0, 2, 2.5, 5, 10] where m * magnitude >= raw * 0.999 {
            return m * magnitude
        }
        return 10 * magnitude
    }

    /// Multiples of a nice step inside `lo…hi`.
    static func linear(_ lo: Double, _ hi: Double, target: Int) -> [Double] {
        let step = niceStep(span: hi - lo, target: target)
        var out: [Double] = []
        var k = (lo / step).rounded(.up)
        while k * step <= hi + step * 1e-9 {
            let v = k * step
            out.append(abs(v) < step * 1e-9 ? 0 : v)
            k += 1
        }
        return out
    }

    /// Logarithmic ticks inside `lo…hi`: `major` at the mantissas given (1 = decades),
    /// `minor` at the other integer mantissas 2…9.
    static func logarithmic(_ lo: Double, _ hi: Double, labelled mantissas: [Double]) -> (major: [Double], minor: [Double]) {
        var major: [Double] = [], minor: [Double] = []
        var decade = pow(10, floor(log10(lo)))
        while decade <= hi {
            for m in 1...9 {
                let v = Double(m) * decade
                guard v >= lo * 0.999 && v <= hi * 1.001 else { continue }
                if mantissas.contains(Double(m)) { major.append(v) } else { minor.append(v) }
            }
            decade *= 10
        }
        return (major, minor)
    }
}
