import Foundation
import XCTest

/// The reverb quality measures (`ReverbMeasures.swift`) on synthetic signals whose answers are
/// known, before they judge the reverb (`ReverbQualityTests`).
final class ReverbMeasuresTests: XCTestCase {
    typealias IRA = ImpulseResponseAnalysis
    let fs = 48_000.0

    /// Gaussian noise (deterministic), times `envelope(t)` with t in seconds.
    func noise(seconds: Double, seed: UInt64, envelope: (Double) -> Double = { _ in 1 }) -> [Float] {
        var s = seed
        return (0..<Int(seconds * fs)).map { Float(IRA.gaussian(&s) * envelope(Double($0) / fs)) }
    }

    /// Amplitude envelope of a T60 decay: −60 dB after `t60` seconds.
    func decay(_ t60: Double) -> (Double) -> Double { { t in pow(10, -3 * t / t60) } }

    // MARK: Echo density and mixing time

    func testGaussianNoiseHasEchoDensityOne() {
        let x = noise(seconds: 1, seed: 1)
        let d = IRA.echoDensityProfile(x, sampleRate: fs)
        for k in stride(from: 50, to: 950, by: 25) {
            XCTAssertEqual(d[k], 1, accuracy: 0.05, "at \(k) ms")
        }
        // Decaying at a small room's rate (−3 dB over a 20 ms window) it is still about 1.
        let decaying = IRA.echoDensityProfile(noise(seconds: 0.5, seed: 2, envelope: decay(0.4)),
                                              sampleRate: fs)
        for k in stride(from: 50, to: 300, by: 25) {
            XCTAssertEqual(decaying[k], 1, accuracy: 0.08, "at \(k) ms")
        }
    }

    func testSparseEchoesHaveLowEchoDensity() {
        // One echo every 5 ms: 1 sample in 240 beyond σ, 1/240/0.3173 ≈ 0.013.
        var x = [Float](repeating: 0, count: Int(fs))
        for i in stride(from: 0, to: x.count, by: 240) { x[i] = 1 }
        let d = IRA.echoDensityProfile(x, sampleRate: fs)
        for k in stride(from: 50, to: 950, by: 50) {
            XCTAssertEqual(d[k], 1 / 240 / erfc(1 / 2.0.squareRoot()), accuracy: 0.003)
        }
    }

    /// Sparse echoes for 150 ms, then noise: the mixing time is the change-over (±the 50 ms
    /// smoothing's half width), counted from the first arrival; the density 100 ms in is low.
    func testMixingTimeFindsTheChangeFromSparseToDense() {
        let onset = 0.010
        var x = [Float](repeating: 0, count: Int(onset * fs))
        var sparse = [Float](repeating: 0, count: Int(0.150 * fs))
        for i in stride(from: 0, to: sparse.count, by: 480) { sparse[i] = 2 }
        x += sparse + noise(seconds: 0.9, seed: 3)
        let density = IRA.echoDensity(left: x, right: x, sampleRate: fs)
        XCTAssertEqual(IRA.firstArrival(left: x, right: x), Int(onset * fs))
        let tmix = try! XCTUnwrap(IRA.mixingTime(density: density))
        XCTAssertEqual(tmix, 0.150, accuracy: 0.030)
        XCTAssertLessThan(IRA.density(density, at: 0.1), 0.1)
        XCTAssertGreaterThan(IRA.density(density, at: 0.3), 0.95)
        // Never dense: no mixing time.
        XCTAssertNil(IRA.mixingTime(density: IRA.echoDensity(left: sparse, right: sparse, sampleRate: fs)))
    }

    // MARK: Ringing

    /// Noise with an exponential envelope is its own reference: tail − reference within the
    /// scatter of the statistic (±2 dB) for several draws.
    func testNoiseTailDoesNotRing() {
        for seed in [11, 12, 13] as [UInt64] {
            let l = noise(seconds: 1.2, seed: seed, envelope: decay(1.6))
            let r = noise(seconds: 1.2, seed: seed + 100, envelope: decay(1.6))
            let ringing = IRA.ringing(left: l, right: r, sampleRate: fs)
            XCTAssertEqual(ringing.tail - ringing.reference, 0, accuracy: 2, "seed \(seed)")
            XCTAssertEqual(ringing.reference, 9, accuracy: 2.5)   // the max of ~10⁴ χ² bins
        }
    }

    /// The same noise plus a 356 Hz sinusoid that decays more slowly (T60 2.4 s against 1.6 s,
    /// a fault the plate once had): the tail's peak stands out of the noise reference at
    /// that frequency; a line 30 dB weaker is below the statistic's reach.
    func testDecayingSinusoidRings() {
        let l = noise(seconds: 1.2, seed: 21, envelope: decay(1.6))
        let r = noise(seconds: 1.2, seed: 22, envelope: decay(1.6))
        func withLine(_ amplitude: Double) -> ([Float], [Float]) {
            let line = (0..<l.count).map { i -> Float in
                let t = Double(i) / fs
                return Float(amplitude * pow(10, -3 * t / 2.4) * sin(2 * Double.pi * 356 * t))
            }
            return (zip(l, line).map { $0 + $1 }, zip(r, line).map { $0 + $1 })
        }
        let (ringL, ringR) = withLine(0.1)
        let ringing = IRA.ringing(left: ringL, right: ringR, sampleRate: fs)
        XCTAssertGreaterThan(ringing.tail - ringing.reference, 10)
        XCTAssertEqual(ringing.hertz, 356, accuracy: 2)
        let (weakL, weakR) = withLine(0.003)
        let weak = IRA.ringing(left: weakL, right: weakR, sampleRate: fs)
        XCTAssertLessThan(weak.tail - weak.reference, 3)
    }

    /// The late tail runs from −10 dB to −40 dB of the energy decay curve: on a pure exponential
    /// decay with T60 = 1 s that is 0.167 s to 0.667 s.
    func testLateTailIsTheMinusTenToMinusFortyDecibelStretch() {
        let x = (0..<Int(2 * fs)).map { Float(pow(10, -3 * Double($0) / fs)) * (($0 % 2 == 0) ? 1 : -1) }
        let tail = IRA.lateTail(left: x, right: x)
        XCTAssertEqual(Double(tail.lowerBound) / fs, 10.0 / 60, accuracy: 0.002)
        XCTAssertEqual(Double(tail.upperBound) / fs, 40.0 / 60, accuracy: 0.002)
    }

    // MARK: Correlation, DC, clarity, loudness

    func testLateCorrelation() {
        let a = noise(seconds: 1, seed: 31), b = noise(seconds: 1, seed: 32)
        XCTAssertEqual(IRA.lateCorrelation(left: a, right: a, sampleRate: fs), 1, accuracy: 1e-9)
        XCTAssertEqual(IRA.lateCorrelation(left: a, right: a.map { -$0 }, sampleRate: fs), -1, accuracy: 1e-9)
        XCTAssertEqual(IRA.lateCorrelation(left: a, right: b, sampleRate: fs), 0, accuracy: 0.02)
        // Only what comes 100 ms after the first arrival counts.
        var early = a
        for i in 0..<Int(0.05 * fs) { early[i] = 10 * b[i] }
        XCTAssertEqual(IRA.lateCorrelation(left: early, right: b, sampleRate: fs), 0, accuracy: 0.02)
    }

    func testDCGain() {
        XCTAssertEqual(IRA.dcGain([0.5, 0.25, 0.25]), 0, accuracy: 1e-9)
        XCTAssertEqual(IRA.dcGain([0.05, 0.05]), -20, accuracy: 1e-5)
        // A one-pole high-pass y = x − x₋₁ + R·y₋₁ has no DC: its impulse response sums to 0.
        var y = [Float](), prev = 0.0
        for n in 0..<48_000 {
            let x = n == 0 ? 1.0 : 0.0, xPrev = n == 1 ? 1.0 : 0.0
            prev = x - xPrev + 0.998 * prev
            y.append(Float(prev))
        }
        XCTAssertLessThan(IRA.dcGain(y), -80)
    }

    /// C80 of an exponential energy decay with T60 = 1 s: energy ∝ 10^(−6t), so
    /// C80 = 10·log10((1 − 10^(−0.48))/10^(−0.48)) = 3.06 dB.
    func testClarityOfAnExponentialDecay() {
        let x = (0..<Int(3 * fs)).map { Float(pow(10, -3 * Double($0) / fs)) }
        let expected = 10 * log10((1 - pow(10, -0.48)) / pow(10, -0.48))
        XCTAssertEqual(IRA.clarity80(left: x, right: x, sampleRate: fs), expected, accuracy: 0.01)
        XCTAssertEqual(IRA.loudness(left: [1, 0], right: [0, 1]), 10 * log10(2), accuracy: 1e-9)
    }

    // MARK: Octave-band decay

    /// White noise decaying with T60 = 2 s decays in every octave band at 2 s; with a 1 kHz
    /// tone decaying at T60 = 0.6 s added (10 dB above the noise in all), the 1 kHz band's T20
    /// follows the tone while bands three octaves away still measure the noise's 2 s.
    func testOctaveDecayTimes() {
        let slow = noise(seconds: 2.5, seed: 41, envelope: decay(2))
        let bands = IRA.octaveDecayTimes(left: slow, right: slow, sampleRate: fs)
        XCTAssertEqual(bands.map(\.hertz), [125, 250, 500, 1000, 2000, 4000, 8000])
        for b in bands { XCTAssertEqual(b.seconds ?? 0, 2, accuracy: 0.2, "\(b.hertz) Hz") }
        let tone = (0..<slow.count).map { i -> Float in
            let t = Double(i) / fs
            return Float(3 * pow(10, -3 * t / 0.6) * sin(2 * Double.pi * 1000 * t))
        }
        let mixed = zip(slow, tone).map { $0 + $1 }
        let withTone = IRA.octaveDecayTimes(left: mixed, right: mixed, sampleRate: fs)
        XCTAssertLessThan(withTone[3].seconds ?? 9, 1.0)
        XCTAssertEqual(withTone[0].seconds ?? 0, 2, accuracy: 0.3)
        XCTAssertEqual(withTone[6].seconds ?? 0, 2, accuracy: 0.3)
    }
}
