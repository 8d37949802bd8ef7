import Foundation
import XCTest
import RackTestSupport

/// The loudness measure against the standard's own figures, so the factory presets' loudness
/// test measures against BS.1770, not against our output: the K-weighting coefficients of
/// ITU-R BS.1770-4 Tables 1 and 2 at 48 kHz, its 997 Hz calibration, and the integrated
/// loudness ("I") cases of EBU Tech 3341 (v4, 2016, Table 1: expected value ±0.1 LU).
final class IntegratedLoudnessTests: XCTestCase {
    private let rate = 48_000.0

    func testKWeightingReproducesTheStandardsCoefficientsAt48kHz() {
        let (shelf, highPass) = IntegratedLoudness.kWeighting(sampleRate: rate)
        // BS.1770-4 Table 1 (pre-filter) and Table 2 (RLB filter).
        let table1 = [1.53512485958697, -2.69169618940638, 1.19839281085285, -1.69065929318241, 0.73248077421585]
        let table2 = [1.0, -2.0, 1.0, -1.99004745483398, 0.99007225036621]
        for (ours, standard) in zip([shelf.b0, shelf.b1, shelf.b2, shelf.a1, shelf.a2], table1) {
            XCTAssertEqual(ours, standard, accuracy: 1e-9)
        }
        for (ours, standard) in zip([highPass.b0, highPass.b1, highPass.b2, highPass.a1, highPass.a2], table2) {
            XCTAssertEqual(ours, standard, accuracy: 1e-9)
        }
    }

    /// BS.1770-4 §2.1: a 0 dBFS 997 Hz sine in one front channel reads −3.01 LKFS.
    func testA997HzFullScaleSineInOneChannelReadsMinus3Point01() {
        let left = sine(hz: 997, segments: [(dBFS: 0, seconds: 10)])
        let silent = [Float](repeating: 0, count: left.count)
        XCTAssertEqual(IntegratedLoudness.lufs([left, silent], sampleRate: rate), -3.01, accuracy: 0.01)
    }

    /// Tech 3341 cases 1 and 2: a stereo 1 kHz sine at −23 and −33 dBFS for 20 s.
    func testTech3341SteadySines() {
        for level in [-23.0, -33.0] {
            let tone = sine(hz: 1000, segments: [(level, 20)])
            XCTAssertEqual(IntegratedLoudness.lufs([tone, tone], sampleRate: rate), level, accuracy: 0.1, "\(level) dBFS")
        }
    }

    /// Tech 3341 case 3: −36, −23, −36 dBFS for 10, 60, 10 s reads −23.0 (the quiet parts fall
    /// under the relative gate; without it this reads −24.2).
    func testTech3341RelativeGate() {
        let tone = sine(hz: 1000, segments: [(-36, 10), (-23, 60), (-36, 10)])
        XCTAssertEqual(IntegratedLoudness.lufs([tone, tone], sampleRate: rate), -23, accuracy: 0.1)
    }

    /// Tech 3341 case 4: −72, −36, −23, −36, −72 dBFS for 10, 10, 60, 10, 10 s reads −23.0
    /// (the −72 dBFS parts fall under the absolute gate).
    func testTech3341AbsoluteGate() {
        let tone = sine(hz: 1000, segments: [(-72, 10), (-36, 10), (-23, 60), (-36, 10), (-72, 10)])
        XCTAssertEqual(IntegratedLoudness.lufs([tone, tone], sampleRate: rate), -23, accuracy: 0.1)
    }

    /// Tech 3341 case 5: −26, −20, −26 dBFS for 20, 20.1, 20 s reads −23.0 (every block counts).
    func testTech3341LevelSteps() {
        let tone = sine(hz: 1000, segments: [(-26, 20), (-20, 20.1), (-26, 20)])
        XCTAssertEqual(IntegratedLoudness.lufs([tone, tone], sampleRate: rate), -23, accuracy: 0.1)
    }

    func testSilenceAndTooShortAreMinusInfinity() {
        let silence = [Float](repeating: 0, count: Int(rate))
        XCTAssertEqual(IntegratedLoudness.lufs([silence, silence], sampleRate: rate), -.infinity)
        let short = sine(hz: 1000, segments: [(-23, 0.3)])
        XCTAssertEqual(IntegratedLoudness.lufs([short, short], sampleRate: rate), -.infinity)
    }

    /// A sine of `hz` whose peak steps through `segments` (level in dBFS, length in seconds),
    /// its phase continuous across the steps.
    private func sine(hz: Double, segments: [(dBFS: Double, seconds: Double)]) -> [Float] {
        var samples: [Float] = []
        samples.reserveCapacity(Int(segments.map(\.seconds).reduce(0, +) * rate) + segments.count)
        for (dBFS, seconds) in segments {
            let amplitude = pow(10, dBFS / 20)
            let start = samples.count
            for n in start..<(start + Int((seconds * rate).rounded())) {
                samples.append(Float(amplitude * sin(2 * .pi * hz * Double(n) / rate)))
            }
        }
        return samples
    }
}
