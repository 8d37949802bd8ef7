import Foundation
import XCTest
@testable import RackDSP

/// The filter's three outputs measured against their math: the impulse response of each mode,
/// transformed at single frequencies, against `magnitudeDecibels` (the closed-form transfer
/// function), and each output sample against the TPT SVF computed in double precision.
final class FilterModeTests: XCTestCase {
    /// The impulse response of `mode` at a steady setting, `count` samples, in calls of
    /// `chunks` samples.
    func impulseResponse(_ mode: StateVariableFilter.Mode, cutoff: Double, resonance: Double, rate: Double,
                         count: Int, chunks: Int = 4_097) -> [Float] {
        var filter = StateVariableFilter(mode: mode, maximumCutoffHz: 20_000)
        filter.prepare(sampleRate: rate, maxFrames: count)
        let c = filter.coefficients(cutoffHz: cutoff, resonanceDecibels: resonance)
        var left = [Float](repeating: 0, count: count), right = left
        left[0] = 1; right[0] = 1
        left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
            var done = 0
            while done < count {
                let n = min(chunks, count - done)
                filter.process(left: l.baseAddress! + done, right: r.baseAddress! + done, frames: n,
                               from: c, to: c, offset: done, length: count)
                done += n
            }
        }}
        XCTAssertEqual(left, right)
        return left
    }

    /// |Σ h[n]·e^(−jωn)| in dB.
    func decibels(_ h: [Float], at f: Double, rate: Double) -> Double {
        var re = 0.0, im = 0.0
        let w = 2 * Double.pi * f / rate
        for (n, x) in h.enumerated() {
            re += Double(x) * cos(w * Double(n))
            im -= Double(x) * sin(w * Double(n))
        }
        return 10 * log10(re * re + im * im)
    }

    func testEachModesMeasuredResponseIsItsTransferFunction() {
        let cases: [(cutoff: Double, resonance: Double, rate: Double)] =
            [(1_000, 0, 48_000), (200, 12, 44_100), (5_000, -6, 96_000), (12_000, 20, 48_000)]
        for mode in StateVariableFilter.Mode.allCases {
            for c in cases {
                var filter = StateVariableFilter(mode: mode, maximumCutoffHz: 20_000)
                filter.prepare(sampleRate: c.rate, maxFrames: 1)
                let h = impulseResponse(mode, cutoff: c.cutoff, resonance: c.resonance, rate: c.rate, count: 32_768)
                for f in [20.0, 60, 150, 400, 1_000, 2_500, 5_000, 9_000, 14_000, 19_000] {
                    let expected = filter.magnitudeDecibels(frequencyHz: f, cutoffHz: c.cutoff, resonanceDecibels: c.resonance)
                    guard expected > -60 else { continue }      // below that, float rounding shows
                    XCTAssertEqual(decibels(h, at: f, rate: c.rate), expected, accuracy: 0.01,
                                   "\(mode): \(f) Hz through cutoff \(c.cutoff) Hz, \(c.resonance) dB at \(c.rate) Hz")
                }
            }
        }
    }

    /// Zavalishin's TPT SVF in double precision, sample by sample, against the float filter in
    /// every mode: each output within 1e-5 of full scale.
    func testEachModeMatchesTheTPTFilterInDoublePrecision() {
        var x: UInt64 = 11
        let input: [Float] = (0..<48_000).map { _ in
            x = x &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: x >> 11) % 1_000_000) / 2_000_000
        }
        for mode in StateVariableFilter.Mode.allCases {
            for (cutoff, resonance) in [(40.0, 0.0), (1_000.0, 18.0), (15_000.0, -6.0)] {
                var filter = StateVariableFilter(mode: mode, maximumCutoffHz: 20_000)
                filter.prepare(sampleRate: 48_000, maxFrames: 48_000)
                let c = filter.coefficients(cutoffHz: cutoff, resonanceDecibels: resonance)
                var l = input, r = input
                l.withUnsafeMutableBufferPointer { lp in r.withUnsafeMutableBufferPointer { rp in
                    var done = 0
                    for n in [4_097, 10_000, 1, 1, 33_901] {
                        filter.process(left: lp.baseAddress! + done, right: rp.baseAddress! + done, frames: n,
                                       from: c, to: c, offset: done, length: 48_000)
                        done += n
                    }
                }}
                let g = tan(Double.pi * cutoff / 48_000), k = 1 / pow(10, resonance / 20)
                var s1 = 0.0, s2 = 0.0, worst = 0.0
                for n in input.indices {
                    let hp = (Double(input[n]) - (g + k) * s1 - s2) / (1 + g * (g + k))
                    let bp = g * hp + s1, lp = g * bp + s2
                    (s1, s2) = (g * hp + bp, g * bp + lp)
                    let y = switch mode { case .lowPass: lp; case .bandPass: bp; case .highPass: hp }
                    worst = max(worst, abs(Double(l[n]) - y))
                }
                XCTAssertLessThan(worst, 1e-5, "\(mode): cutoff \(cutoff) Hz, resonance \(resonance) dB")
                XCTAssertEqual(l, r)
            }
        }
    }

    /// Any split of a steady stretch into calls (odd sizes, single samples) gives the samples of
    /// one call, in every mode.
    func testEachModeGivesTheSameSamplesForAnySplit() {
        for mode in StateVariableFilter.Mode.allCases {
            let whole = impulseResponse(mode, cutoff: 700, resonance: 9, rate: 48_000, count: 3_000, chunks: 3_000)
            for chunks in [1, 7, 333] {
                XCTAssertEqual(impulseResponse(mode, cutoff: 700, resonance: 9, rate: 48_000, count: 3_000, chunks: chunks),
                               whole, "\(mode), calls of \(chunks)")
            }
        }
    }
}
