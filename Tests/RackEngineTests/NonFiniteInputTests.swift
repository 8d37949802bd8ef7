import Foundation
import XCTest
import RackDSP
@testable import RackEngine

/// Defect: one NaN sample poisoned the audio until restart. Non-finite or absurd input
/// (NaN, ±Inf, |x| > `InputSanitiser.maximumMagnitude`) is replaced by 0 at the head of the
/// render pipeline, before any kernel state, and counted.
final class NonFiniteInputTests: XCTestCase {
    let rate = 48_000.0

    /// Renders `input` on both channels; returns the output and the engine's replaced-sample count.
    func render(_ input: [Float], state: RackState, block: Int = 256) -> (left: [Float], right: [Float], replaced: Int) {
        let engine = Engine(sampleRate: rate, maxFrames: block, state: state)
        var outL = [Float](repeating: 0, count: input.count), outR = outL
        var done = 0
        input.withUnsafeBufferPointer { x in
            outL.withUnsafeMutableBufferPointer { l in outR.withUnsafeMutableBufferPointer { r in
                while done < input.count {
                    let n = min(block, input.count - done)
                    _ = engine.render(frames: n, inputLeft: x.baseAddress! + done, inputRight: x.baseAddress! + done,
                                      outputLeft: l.baseAddress! + done, outputRight: r.baseAddress! + done)
                    done += n
                }
            }}
        }
        return (outL, outR, engine.monitor.get(.replacedInputSamples))
    }

    /// A cathedral, half wet, resonant filter: the longest memory the rack has.
    var longState: RackState {
        var s = RackState()
        s.room = .cathedral
        s[.mix] = 50
        s[.cutoff] = 2000
        s[.resonance] = 12
        return s
    }

    func testOneBadSampleNeverPoisonsTheOutput() {
        let n = Int(3 * rate), at = Int(rate)          // 3 s of noise, the bad sample at 1 s
        let clean = noise(n, seed: 5)
        var silenced = clean
        silenced[at] = 0
        // The reference: the same input with the bad sample replaced by silence.
        let reference = render(silenced, state: longState)
        XCTAssertEqual(reference.replaced, 0)
        // The impulse response of the same graph, for the "as without it" bound below.
        var impulse = [Float](repeating: 0, count: n - at)
        impulse[0] = 1
        let h = render(impulse, state: longState)
        let original = render(clean, state: longState)
        let settle = Int(0.5 * rate)

        for bad: Float in [.nan, .infinity, -.infinity, 1e30, -2000] {
            var input = clean
            input[at] = bad
            let out = render(input, state: longState)
            let nonFinite = out.left.indices.filter { !out.left[$0].isFinite || !out.right[$0].isFinite }.count
            XCTAssertEqual(nonFinite, 0, "\(bad): \(nonFinite) of \(n) output frames not finite")
            XCTAssertEqual(out.replaced, 2, "\(bad): one sample on each channel replaced")
            // Replaced by 0 before any state: the output is exactly the reference's.
            XCTAssertTrue(out.left == reference.left && out.right == reference.right, "\(bad): differs from the input with 0 there")
            // Against the input as it was (the sample `clean[at]` instead of 0): by linearity the
            // difference is clean[at]·h, the graph's response to one sample, and 0.5 s after the
            // event it is the cathedral's tail of one sample.
            var worstAfter: Float = 0, tailBound: Float = 0
            for i in (at + settle)..<n {
                worstAfter = max(worstAfter, abs(out.left[i] - original.left[i]), abs(out.right[i] - original.right[i]))
                tailBound = max(tailBound, abs(h.left[i - at]), abs(h.right[i - at]))
            }
            print(String(format: "bad sample %@ at 1 s: %d non-finite outputs; 0.5 s later the output differs from the input as it was by at most %.1f dBFS (one sample's cathedral tail: %.1f dBFS)",
                         "\(bad)", nonFinite, 20 * log10(Double(max(worstAfter, 1e-12))), 20 * log10(Double(abs(clean[at]) * tailBound))))
            XCTAssertLessThanOrEqual(worstAfter, abs(clean[at]) * tailBound * 1.01 + 1e-6, "\(bad)")
            XCTAssertLessThan(worstAfter, 1e-3, "\(bad): \(20 * log10(Double(worstAfter))) dBFS after 0.5 s")
        }
    }

    func testLargeButPlausibleInputPassesUntouched() {
        // +59 dBFS is still audio (a float stream far above full scale), not a fault.
        var input = noise(4800, seed: 2)
        input[100] = 0.9 * InputSanitiser.maximumMagnitude
        input[200] = -InputSanitiser.maximumMagnitude
        var state = RackState()
        state[.mix] = 0
        let out = render(input, state: state)
        XCTAssertEqual(out.replaced, 0)
        XCTAssertTrue(out.left.allSatisfy(\.isFinite))
    }

    func testEveryBadSampleIsCountedOnEachChannel() {
        var input = noise(9600, seed: 3)
        for i in stride(from: 10, to: 9600, by: 1000) { input[i] = .nan }   // 10 bad frames
        let out = render(input, state: RackState(), block: 64)
        XCTAssertEqual(out.replaced, 20)
        XCTAssertTrue(out.left.allSatisfy(\.isFinite) && out.right.allSatisfy(\.isFinite))
    }
}
