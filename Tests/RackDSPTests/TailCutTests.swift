import XCTest
@testable import RackDSP

/// The README: "A third change while two rooms sound cuts the older tail over 20 ms". Measured
/// on the slots: from the call that asks for the third room, the older tail is cut (its slot
/// fades out) and is no longer sounding 20 ms later, to the 8-frame group the kernel works in;
/// then its network is cleared in steps over about 10 ms (at least half of it, at most 10 ms
/// and a group) and is clean.
final class TailCutTests: XCTestCase {
    /// The README's figure (seconds), not the kernel's constant.
    let readmeCutSeconds = 0.020
    /// The README: the cut network "is cleared in bounded steps (about 10 ms)".
    let readmeClearSeconds = 0.010

    func testAThirdRoomCutsTheOlderTailWithin20ms() {
        for rate in [44_100.0, 48_000.0, 96_000.0] {
            var reverb = Reverb()
            reverb.prepare(sampleRate: rate, maxFrames: 64)
            reverb.setRoom(.plate, crossfadeFrames: 0)
            let group = 8
            let noise = DSPTestSignals.noise(group, seed: 7)
            var outL = [Float](repeating: 0, count: group), outR = outL
            func run(_ seconds: Double) -> Int {
                let groups = Int((seconds * rate).rounded()) / group
                for _ in 0..<groups {
                    noise.withUnsafeBufferPointer { x in
                        outL.withUnsafeMutableBufferPointer { l in outR.withUnsafeMutableBufferPointer { r in
                            reverb.process(inputLeft: x.baseAddress!, inputRight: x.baseAddress!,
                                           outputLeft: l.baseAddress!, outputRight: r.baseAddress!, frames: group)
                        }}
                    }
                }
                return groups * group
            }
            func cutting() -> Int { (0..<reverb.slotCount).filter { reverb.slots![$0].isIn(.cutting) }.count }
            _ = run(0.5)
            reverb.setRoom(.smallRoom, crossfadeFrames: Int(0.1 * rate))
            _ = run(0.2)
            XCTAssertEqual(cutting(), 0, "\(rate) Hz: nothing is cut while two rooms sound")
            reverb.setRoom(.cathedral, crossfadeFrames: Int(0.1 * rate))
            var frames = run(Double(group) / rate)
            XCTAssertEqual(cutting(), 1, "\(rate) Hz: the third room does not cut the older tail")
            while cutting() > 0 && frames < Int(rate) { frames += run(Double(group) / rate) }
            let bound = Int((readmeCutSeconds * rate).rounded()) + group
            XCTAssertLessThanOrEqual(frames, bound,
                                     "\(rate) Hz: the older tail is cut over \(frames) frames, more than 20 ms")
            XCTAssertGreaterThanOrEqual(frames, Int((readmeCutSeconds * rate).rounded()) - group,
                                        "\(rate) Hz: the cut is a fade of 20 ms, not a jump (\(frames) frames)")
            // Then the cut network is cleared in bounded steps over about 10 ms, and is clean.
            func clearing() -> Int { (0..<reverb.slotCount).filter { reverb.slots![$0].isIn(.clearing) }.count }
            var clearFrames = 0
            while clearing() > 0 && clearFrames < Int(rate) { clearFrames += run(Double(group) / rate) }
            let readmeClear = Int((readmeClearSeconds * rate).rounded())
            XCTAssertLessThanOrEqual(clearFrames, readmeClear + group, "\(rate) Hz: clearing took \(clearFrames) frames")
            XCTAssertGreaterThanOrEqual(clearFrames, readmeClear / 2, "\(rate) Hz: clearing took \(clearFrames) frames, not in steps")
            XCTAssertEqual((0..<reverb.slotCount).filter { reverb.slots![$0].isIn(.clean) }.count, 1, "\(rate) Hz: the cut network is clean")
        }
    }
}
