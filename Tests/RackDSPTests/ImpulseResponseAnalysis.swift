import RackDSP

/// Measurements on rendered responses, done from first principles (ISO 3382-style Schroeder
/// integration, least-squares decay fit, normalised cross-correlation), so the reverb's tests
/// compare it against acoustics rather than against its own earlier output.
enum ImpulseResponseAnalysis {
    /// Runs `input` (both channels) through `reverb` in blocks of `block` frames and returns the
    /// two outputs. The caller prepares the reverb and sets its room.
    static func render(_ reverb: inout Reverb, left: [Float], right: [Float],
                       block: Int = 4096) -> (left: [Float], right: [Float]) {
        precondition(left.count == right.count)
        let n = left.count
        var outL = [Float](repeating: 0, count: n)
        var outR = [Float](repeating: 0, count: n)
        left.withUnsafeBufferPointer { il in
            right.withUnsafeBufferPointer { ir in
                outL.withUnsafeMutableBufferPointer { ol in
                    outR.withUnsafeMutableBufferPointer { or in
                        var i = 0
                        while i < n {
                            let m = min(block, n - i)
                            reverb.process(inputLeft: il.baseAddress! + i, inputRight: ir.baseAddress! + i,
                                           outputLeft: ol.baseAddress! + i, outputRight: or.baseAddress! + i,
                                           frames: m)
                            i += m
                        }
                    }
                }
            }
        }
        return (outL, outR)
    }

    /// The response to a unit impulse at sample `at` fed into BOTH inputs, `frames` long.
    static func impulseResponse(_ reverb: inout Reverb, frames: Int, at: Int = 0,
                                block: Int = 4096) -> (left: [Float], right: [Float]) {
        var x = [Float](repeating: 0, count: frames)
        x[at] = 1
        return render(&reverb, left: x, right: x, block: block)
    }

    /// 10·log10(x).
    static func decibels(_ x: Double) -> Double {
        10 * RackMath.log2(x) / RackMath.log2Of10
    }

    /// Schroeder backward integration of the squared response summed over both channels,
    /// E(t) = Σ_{τ ≥ t} (L² + R²), in dB relative to E(0). Entries after the last non-zero sample
    /// are −∞.
    static func energyDecayCurve(left: [Float], right: [Float]) -> [Double] {
        let n = left.count
        var e = [Double](repeating: 0, count: n)
        var acc = 0.0
        for i in stride(from: n - 1, through: 0, by: -1) {
            let l = Double(left[i]), r = Double(right[i])
            acc += l * l + r * r
            e[i] = acc
        }
        let total = e.first ?? 0
        guard total > 0 else { return e.map { _ in -Double.infinity } }
        return e.map { $0 > 0 ? decibels($0 / total) : -Double.infinity }
    }

    /// Decay time extrapolated to 60 dB (s) from a least-squares line through the energy decay
    /// curve between `upper` and `lower` dB (−5…−25: T20; −5…−35: T30). Nil when the curve does
    /// not reach `lower` (response too short) or the fit does not decay.
    static func reverberationTime(left: [Float], right: [Float], sampleRate: Double,
                                  upper: Double = -5, lower: Double = -25) -> Double? {
        let edc = energyDecayCurve(left: left, right: right)
        guard let start = edc.firstIndex(where: { $0 <= upper }),
              let end = edc.firstIndex(where: { $0 <= lower }), end > start + 1 else { return nil }
        // Least squares: level = a + slope·t over [start, end).
        var st = 0.0, sy = 0.0, stt = 0.0, sty = 0.0
        let count = Double(end - start)
        for i in start..<end {
            let t = Double(i) / sampleRate
            let y = edc[i]
            st += t; sy += y; stt += t * t; sty += t * y
        }
        let slope = (count * sty - st * sy) / (count * stt - st * st)   // dB per second
        guard slope < 0 else { return nil }
        return -60 / slope
    }

    /// Normalised cross-correlation Σ a[i]·b[i+lag] / √(Σa²·Σb²) over `range` of a.
    static func normalizedCrossCorrelation(_ a: [Float], _ b: [Float], lag: Int = 0,
                                           range: Range<Int>? = nil) -> Double {
        let r = range ?? 0..<a.count
        var ab = 0.0, aa = 0.0, bb = 0.0
        for i in r where i + lag >= 0 && i + lag < b.count {
            let x = Double(a[i]), y = Double(b[i + lag])
            ab += x * y; aa += x * x; bb += y * y
        }
        guard aa > 0, bb > 0 else { return 0 }
        return ab / (aa * bb).squareRoot()
    }

    /// Σ x² (Double).
    static func energy(_ x: [Float]) -> Double {
        x.reduce(0) { $0 + Double($1) * Double($1) }
    }

    /// Largest |x[i] − x[i−1]| over `range` (first index ≥ 1).
    static func maxStep(_ x: [Float], in range: Range<Int>) -> Float {
        var m: Float = 0
        for i in max(range.lowerBound, 1)..<range.upperBound {
            m = max(m, abs(x[i] - x[i - 1]))
        }
        return m
    }

    /// Deterministic white noise, uniform in [−amplitude, amplitude) (LCG; no Foundation).
    static func noise(count: Int, amplitude: Float = 1, seed: UInt32 = 0x1234_5678) -> [Float] {
        var s = seed
        var out = [Float](repeating: 0, count: count)
        for i in 0..<count {
            s = s &* 1_664_525 &+ 1_013_904_223
            out[i] = Float(Int32(bitPattern: s)) / 2_147_483_648 * amplitude
        }
        return out
    }
}
