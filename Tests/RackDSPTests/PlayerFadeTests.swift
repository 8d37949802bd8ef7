import XCTest
@testable import RackDSP

/// The README's 5 ms player fades: play fades in and stop fades out linearly over
/// `PlayerTuning.fadeSeconds` (240 frames at 48 kHz, 40 at 8 kHz), measured on a ring of ones.
final class PlayerFadeTests: XCTestCase {
    /// `frames` frames of the player's left output after `setPlaying(playing)`, from a ring of ones.
    private func render(_ player: inout Player, frames: Int) -> [Float] {
        var left = [Float](repeating: 0, count: frames), right = left
        var scratchLeft = left, scratchRight = left
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                scratchLeft.withUnsafeMutableBufferPointer { sl in
                    scratchRight.withUnsafeMutableBufferPointer { sr in
                        player.process(left: l.baseAddress!, right: r.baseAddress!, scratchLeft: sl.baseAddress!,
                                       scratchRight: sr.baseAddress!, frames: frames)
                    }
                }
            }
        }
        XCTAssertEqual(left, right)
        return left
    }

    private func ringOfOnes(frames: Int) -> StereoRing {
        let ring = StereoRing(minimumCapacity: frames)
        let ones = [Float](repeating: 1, count: frames)
        XCTAssertEqual(ring.write(left: ones, right: ones, frames: frames), frames)
        return ring
    }

    /// The index of the first sample at full level, and the largest step from the straight line
    /// 0 → 1 over `fadeFrames` samples before it.
    private func fadeShape(_ x: [Float], rising: Bool, fadeFrames: Double) -> (end: Int, deviation: Double) {
        let end = x.firstIndex { rising ? $0 >= 1 : $0 <= 0 } ?? x.count
        var deviation = 0.0
        for i in 0..<min(end, x.count) {
            let line = Double(i + 1) / fadeFrames
            deviation = max(deviation, abs(Double(x[i]) - (rising ? line : 1 - line)))
        }
        return (end, deviation)
    }

    func testPlayAndStopFadeOverFiveMilliseconds() {
        for rate in [48_000.0, 8_000.0] {
            let fadeFrames = PlayerTuning.fadeSeconds * rate
            XCTAssertEqual(PlayerTuning.fadeSeconds, 0.005, "the README's 5 ms")
            var player = Player()
            player.prepare(sampleRate: rate, maxFrames: 1024)
            player.attach(ringOfOnes(frames: 2048))
            player.setPlaying(true)
            let rise = fadeShape(render(&player, frames: 512), rising: true, fadeFrames: fadeFrames)
            // Full level at the fade's last sample (Float steps may take one more).
            XCTAssertTrue((Int(fadeFrames) - 1...Int(fadeFrames)).contains(rise.end), "rate \(rate): full at \(rise.end)")
            XCTAssertLessThan(rise.deviation, 1e-4, "rate \(rate): not a straight line from 0")
            player.setPlaying(false)
            let fall = render(&player, frames: 512)
            let drop = fadeShape(fall, rising: false, fadeFrames: fadeFrames)
            XCTAssertTrue((Int(fadeFrames) - 1...Int(fadeFrames)).contains(drop.end), "rate \(rate): silent at \(drop.end)")
            XCTAssertLessThan(drop.deviation, 1e-4, "rate \(rate): not a straight line to 0")
            XCTAssertTrue(fall[drop.end...].allSatisfy { $0 == 0 }, "rate \(rate): sound after the fade out")
        }
    }
}
