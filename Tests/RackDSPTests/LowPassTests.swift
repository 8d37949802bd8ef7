import Foundation
import RackTestSupport
import XCTest
@testable import RackDSP

/// The low-pass measured against its definition: a 2-pole low-pass whose gain at the cutoff is
/// the resonance in dB, 0 dB in the passband, −12 dB/octave above the cutoff.
final class LowPassTests: XCTestCase {
    let rate = 48_000.0

    /// Steady-state gain in dB of the filter at `frequency` with fixed settings: a sine is run
    /// through it until the transient has died, then its amplitude is measured by correlation
    /// over whole periods.
    func magnitude(at frequency: Double, cutoff: Double, resonance: Double) -> Double {
        var f = StateVariableFilter(maximumCutoffHz: 20_000)
        f.prepare(sampleRate: rate, maxFrames: 4096)
        let c = f.coefficients(cutoffHz: cutoff, resonanceDecibels: resonance)
        let settle = Int(rate * max(0.5, 20 / cutoff)) // many time constants, even at low cutoff
        let periods = max(1, Int(frequency * 0.2))
        let measure = Int((Double(periods) * rate / frequency).rounded())
        let total = settle + measure
        var left = [Float](repeating: 0, count: total), right = left
        for n in 0..<total { left[n] = Float(sin(2 * .pi * frequency * Double(n) / rate)); right[n] = left[n] }
        left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
            var done = 0
            while done < total {
                let n = min(4096, total - done)
                f.process(left: l.baseAddress! + done, right: r.baseAddress! + done, frames: n, from: c, to: c, offset: 0, length: n)
                done += n
            }
        }}
        var s = 0.0, co = 0.0
        for n in settle..<total {
            let ph = 2 * .pi * frequency * Double(n) / rate
            s += Double(left[n]) * sin(ph)
            co += Double(left[n]) * cos(ph)
        }
        let amplitude = 2 * sqrt(s * s + co * co) / Double(total - settle)
        return 20 * log10(amplitude)
    }

    func testGainAtCutoffEqualsResonance() {
        for cutoff in [100.0, 1000, 2500, 8000] {
            for resonance in [-20.0, -3, 0, 5, 12, 20] {
                XCTAssertEqual(magnitude(at: cutoff, cutoff: cutoff, resonance: resonance), resonance, accuracy: 0.1,
                               "gain at cutoff \(cutoff) Hz with resonance \(resonance) dB")
            }
        }
    }

    /// The exact response of the bilinear-transformed prototype H(s) = 1/(s² + s/Q + 1), with
    /// the frequency prewarped so that the cutoff lands exactly.
    func theory(at f: Double, cutoff: Double, resonance: Double) -> Double {
        let q = pow(10, resonance / 20)
        let w = tan(.pi * f / rate) / tan(.pi * cutoff / rate)
        let re = 1 - w * w, im = w / q
        return -10 * log10(re * re + im * im)
    }

    func testMagnitudeFollowsTheTransferFunction() {
        for (cutoff, resonance) in [(384.0, -3.0), (2500, 5), (14_000, 12), (60, 20), (1000, -20)] {
            for f in [20.0, 100, 440, 1000, 3000, 9000, 15_000] {
                XCTAssertEqual(magnitude(at: f, cutoff: cutoff, resonance: resonance), theory(at: f, cutoff: cutoff, resonance: resonance),
                               accuracy: 0.05, "\(f) Hz through cutoff \(cutoff) Hz, resonance \(resonance) dB")
            }
        }
    }

    func testPassbandIsFlatAndSlopeIsTwelveDecibelsPerOctave() {
        // Butterworth setting (−3 dB at the cutoff): flat passband.
        XCTAssertEqual(magnitude(at: 50, cutoff: 2000, resonance: -3.0103), 0, accuracy: 0.05)
        XCTAssertEqual(magnitude(at: 200, cutoff: 2000, resonance: -3.0103), 0, accuracy: 0.05)
        // Well above the cutoff the analog prototype falls 12 dB/octave; measured one octave
        // apart, away from Nyquist's bilinear compression.
        let a = magnitude(at: 800, cutoff: 100, resonance: -3.0103)
        let b = magnitude(at: 1600, cutoff: 100, resonance: -3.0103)
        XCTAssertEqual(a - b, 12, accuracy: 0.2, "slope per octave")
        XCTAssertEqual(a, -40 * log10(800.0 / 100), accuracy: 0.2, "level three octaves above the cutoff")
    }

    func testStableUnderAudioRateCutoffModulation() {
        var f = StateVariableFilter(maximumCutoffHz: 20_000)
        // The engine's control tick (the README: "jumping every 32 samples").
        let segment = 32
        f.prepare(sampleRate: rate, maxFrames: segment)
        var l = [Float](repeating: 0, count: segment), r = l
        var maxAbs: Float = 0
        var n = 0
        var noise = SplitMix(seed: 0x10_0A55)   // seeded: the same noise every run
        for block in 0..<(48_000 * 5 / segment) {
            for i in 0..<segment { l[i] = Float.random(in: -1...1, using: &noise); r[i] = l[i] }
            // Cutoff jumps between 12 Hz and 19 kHz every segment and every other control point,
            // with maximum resonance.
            let a = f.coefficients(cutoffHz: block % 2 == 0 ? 12 : 19_000, resonanceDecibels: 20)
            let b = f.coefficients(cutoffHz: block % 3 == 0 ? 19_000 : 40, resonanceDecibels: 20)
            l.withUnsafeMutableBufferPointer { lp in r.withUnsafeMutableBufferPointer { rp in
                f.process(left: lp.baseAddress!, right: rp.baseAddress!, frames: segment, from: a, to: b, offset: 0, length: segment)
            }}
            for x in l { XCTAssertTrue(x.isFinite); maxAbs = max(maxAbs, abs(x)) }
            n += segment
        }
        // Q = 10 bounds the gain of a linear filter at 10; modulation may add a little.
        XCTAssertLessThan(maxAbs, 40, "bounded output under modulation")
    }

    func testSplittingASegmentGivesTheSameSamples() {
        var noise = SplitMix(seed: 512)   // seeded: the same noise every run
        let input = (0..<512).map { _ in Float.random(in: -1...1, using: &noise) }
        func run(_ splits: [Int]) -> [Float] {
            var f = StateVariableFilter(maximumCutoffHz: 20_000)
            f.prepare(sampleRate: rate, maxFrames: 512)
            let a = f.coefficients(cutoffHz: 200, resonanceDecibels: 6)
            let b = f.coefficients(cutoffHz: 5000, resonanceDecibels: -6)
            var l = input, r = input
            var done = 0
            l.withUnsafeMutableBufferPointer { lp in r.withUnsafeMutableBufferPointer { rp in
                for s in splits {
                    f.process(left: lp.baseAddress! + done, right: rp.baseAddress! + done, frames: s, from: a, to: b, offset: done, length: 512)
                    done += s
                }
            }}
            return l
        }
        XCTAssertEqual(run([512]), run([1, 100, 333, 78]))
    }

    /// Steady, ramping and steady again: any split of the segments into calls (odd lengths,
    /// single samples, calls across a change of coefficients) gives the samples of one call per
    /// segment.
    func testSplittingSteadySegmentsAtOddSamplesGivesTheSameSamples() {
        let input = noiseSamples(2_000)
        func run(_ splits: [Int]) -> [Float] {
            var f = StateVariableFilter(maximumCutoffHz: 20_000)
            f.prepare(sampleRate: rate, maxFrames: 2_000)
            let a = f.coefficients(cutoffHz: 700, resonanceDecibels: 9)
            let b = f.coefficients(cutoffHz: 3000, resonanceDecibels: -3)
            var l = input, r = input.reversed() as [Float]
            var done = 0
            l.withUnsafeMutableBufferPointer { lp in r.withUnsafeMutableBufferPointer { rp in
                for s in splits {
                    // Segments: [0, 1001) at a, [1001, 1500) a ramp a → b, [1500, 2000) at b.
                    var k = 0
                    while k < s {
                        let t = done + k
                        let (segStart, segEnd, from, to) = t < 1001 ? (0, 1001, a, a)
                            : t < 1500 ? (1001, 1500, a, b) : (1500, 2000, b, b)
                        let n = min(s - k, segEnd - t)
                        f.process(left: lp.baseAddress! + t, right: rp.baseAddress! + t, frames: n,
                                  from: from, to: to, offset: t - segStart, length: segEnd - segStart)
                        k += n
                    }
                    done += s
                }
            }}
            return l + r
        }
        let whole = run([2_000])
        XCTAssertEqual(whole, run([1, 2, 3, 998, 7, 489, 500]))
        XCTAssertEqual(whole, run(Array(repeating: 1, count: 2_000)))
        XCTAssertEqual(whole, run([333, 333, 333, 333, 333, 335]))
    }

    /// The float filter against Simper's SVF in double precision, sample by sample, at a low,
    /// a resonant and a high cutoff: every output within 1e-5 of full scale.
    func testMatchesTheSVFInDoublePrecision() {
        let input = noiseSamples(48_000)
        for (cutoff, resonance) in [(40.0, 0.0), (1_000.0, 18.0), (15_000.0, -6.0)] {
            var f = StateVariableFilter(maximumCutoffHz: 20_000)
            f.prepare(sampleRate: rate, maxFrames: 48_000)
            let c = f.coefficients(cutoffHz: cutoff, resonanceDecibels: resonance)
            var l = input, r = input
            l.withUnsafeMutableBufferPointer { lp in r.withUnsafeMutableBufferPointer { rp in
                var done = 0
                for n in [4_097, 10_000, 1, 33_902] {
                    f.process(left: lp.baseAddress! + done, right: rp.baseAddress! + done, frames: n,
                              from: c, to: c, offset: done, length: 48_000)
                    done += n
                }
            }}
            // Simper 2013: v3 = v0 − ic2eq, v1 = a1·ic1eq + a2·v3, v2 = ic2eq + a2·ic1eq + a3·v3.
            let g = tan(Double.pi * cutoff / rate), k = 1 / pow(10, resonance / 20)
            let a1 = 1 / (1 + g * (g + k)), a2 = g * a1, a3 = g * a2
            var ic1eq = 0.0, ic2eq = 0.0, worst = 0.0
            for n in 0..<input.count {
                let v3 = Double(input[n]) - ic2eq
                let v1 = a1 * ic1eq + a2 * v3
                let v2 = ic2eq + a2 * ic1eq + a3 * v3
                ic1eq = 2 * v1 - ic1eq
                ic2eq = 2 * v2 - ic2eq
                worst = max(worst, abs(Double(l[n]) - v2))
            }
            XCTAssertLessThan(worst, 1e-5, "cutoff \(cutoff) Hz, resonance \(resonance) dB")
            XCTAssertEqual(l, r)
        }
    }

    /// Deterministic noise in −0.5…0.5.
    func noiseSamples(_ count: Int) -> [Float] {
        var x: UInt64 = 7
        return (0..<count).map { _ in
            x = x &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: x >> 11) % 1_000_000) / 2_000_000
        }
    }

    func testSilentTailNeverGoesSubnormal() {
        var f = StateVariableFilter(maximumCutoffHz: 20_000)
        f.prepare(sampleRate: rate, maxFrames: 1024)
        let c = f.coefficients(cutoffHz: 30, resonanceDecibels: 20)
        var l = [Float](repeating: 0, count: 1024), r = l
        l[0] = 1; r[0] = 1
        for _ in 0..<(48_000 * 30 / 1024) {
            l.withUnsafeMutableBufferPointer { lp in r.withUnsafeMutableBufferPointer { rp in
                f.process(left: lp.baseAddress!, right: rp.baseAddress!, frames: 1024, from: c, to: c, offset: 0, length: 1024)
            }}
            for x in l { XCTAssertFalse(x.isSubnormal) }
            for i in 0..<1024 { l[i] = 0; r[i] = 0 }
        }
    }
}
