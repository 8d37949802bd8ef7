import XCTest
@testable import RackDSP

/// A kernel whose state goes non-finite resets itself: its output stays finite, and from the
/// reset on it sounds exactly like a fresh kernel fed the same input from that point.
final class KernelRecoveryTests: XCTestCase {
    typealias S = DSPTestSignals

    // MARK: Low-pass

    /// Filters `x` (both channels) in blocks of 64 frames at a resonant setting.
    func lowPass(_ blocks: [[Float]], _ filter: inout StateVariableFilter) -> [[Float]] {
        let c = filter.coefficients(cutoffHz: 1500, resonanceDecibels: 12)
        return blocks.map { block in
            var l = block, r = block
            l.withUnsafeMutableBufferPointer { lp in r.withUnsafeMutableBufferPointer { rp in
                filter.process(left: lp.baseAddress!, right: rp.baseAddress!, frames: block.count,
                               from: c, to: c, offset: 0, length: block.count)
            }}
            return l
        }
    }

    func testLowPassResetsItselfAfterANonFiniteInput() {
        let x = S.noise(64 * 40, seed: 9)
        var blocks = stride(from: 0, to: x.count, by: 64).map { Array(x[$0..<($0 + 64)]) }
        for bad: Float in [.nan, .infinity, -.infinity] {
            blocks[10][17] = bad
            var filter = StateVariableFilter(maximumCutoffHz: 20_000)
            filter.prepare(sampleRate: 48_000, maxFrames: 64)
            let out = lowPass(blocks, &filter)
            XCTAssertTrue(out.allSatisfy { $0.allSatisfy(\.isFinite) }, "\(bad): non-finite output")
            XCTAssertEqual(filter.faultResets, 1)
            // From the next block on: a fresh filter fed from there, sample for sample.
            var fresh = StateVariableFilter(maximumCutoffHz: 20_000)
            fresh.prepare(sampleRate: 48_000, maxFrames: 64)
            let reference = lowPass(Array(blocks[11...]), &fresh)
            XCTAssertEqual(Array(out[11...]), reference, "\(bad)")
        }
    }

    // MARK: Reverb

    func testReverbWithCorruptedStateResetsItself() {
        let n = 48_000, at = 24_000                     // corrupt after 0.5 s (a multiple of 8)
        let xl = S.noise(n, seed: 1), xr = S.noise(n, seed: 2)
        var reverb = Reverb()
        reverb.prepare(sampleRate: 48_000, maxFrames: 256)
        reverb.setRoom(.cathedral, crossfadeFrames: 0)
        _ = S.process(&reverb, Array(xl[..<at]), Array(xr[..<at]))
        // A NaN in every delay line of the heard network (as if a bit flipped).
        Self.writeNaNIntoLiveLines(of: reverb)
        let after = S.process(&reverb, Array(xl[at...]), Array(xr[at...]))
        XCTAssertTrue(after.left.allSatisfy(\.isFinite) && after.right.allSatisfy(\.isFinite))
        XCTAssertEqual(reverb.faultResets, 1)
        // A fresh reverb fed from the corruption on: the same output.
        let fresh = S.reverb(Array(xl[at...]), Array(xr[at...]), room: .cathedral)
        var worst: Float = 0
        for i in 8..<after.left.count {
            worst = max(worst, abs(after.left[i] - fresh.left[i]), abs(after.right[i] - fresh.right[i]))
        }
        XCTAssertLessThan(worst, 1e-6)
    }

    func testReverbFedANaNRecoversAndMatchesAReverbResetThere() {
        let n = 72_000, bad = 10_003
        let xl = S.noise(n, seed: 3), xr = S.noise(n, seed: 4)
        var poisonedL = xl
        poisonedL[bad] = .nan
        let clean = S.reverb(xl, xr, room: .largeHall)
        let out = S.reverb(poisonedL, xr, room: .largeHall)
        XCTAssertTrue(out.left.allSatisfy(\.isFinite) && out.right.allSatisfy(\.isFinite))
        // Identical until the network reads the NaN; there it resets (at a group start).
        guard let reset = out.left.indices.first(where: { out.left[$0] != clean.left[$0] || out.right[$0] != clean.right[$0] }) else {
            return XCTFail("the NaN changed nothing")
        }
        XCTAssertGreaterThan(reset, bad)
        XCTAssertLessThan(reset, bad + 9_600, "reset within 0.2 s of the bad sample")
        XCTAssertEqual(reset % 8, 0)
        // From the reset on: a fresh reverb fed the input from there.
        let fresh = S.reverb(Array(xl[reset...]), Array(xr[reset...]), room: .largeHall)
        var worst: Float = 0
        for i in 8..<fresh.left.count {
            worst = max(worst, abs(out.left[reset + i] - fresh.left[i]), abs(out.right[reset + i] - fresh.right[i]))
        }
        XCTAssertLessThan(worst, 1e-6)
    }

    /// Writes NaN into every delay line of the heard network, through the memory the reverb
    /// holds, as a flipped bit would.
    static func writeNaNIntoLiveLines(of reverb: borrowing Reverb) {
        guard let lines = reverb.active.lines else { return XCTFail("unprepared reverb") }
        lines.update(repeating: .nan, count: 8 * reverb.active.lineStride)
    }
}
