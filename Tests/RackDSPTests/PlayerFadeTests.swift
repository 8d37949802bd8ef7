import XCTest
@testable import RackDSP

/// The transport's fades (the README: `/rack/player/play` and `/rack/player/stop` fade over
/// 5 ms): on a constant signal, play rises from silence to full in 5 ms and stop falls back to
/// silence in 5 ms, one even step a sample, at 44.1, 48 and 96 kHz. The 5 ms is the README's
/// figure written here, not read from the code's constant.
final class PlayerFadeTests: XCTestCase {
    static let fadeSeconds = 0.005

    func testPlayAndStopFadeOverFiveMilliseconds() {
        for rate in [44_100.0, 48_000.0, 96_000.0] {
            let fade = Self.fadeSeconds * rate
            let span = Int(fade.rounded(.up))
            let ring = StereoRing(minimumCapacity: 8 * span)
            defer { ring.deallocate() }
            let ones = [Float](repeating: 1, count: 6 * span)
            let written = ones.withUnsafeBufferPointer { ring.write(left: $0.baseAddress!, right: $0.baseAddress!, frames: ones.count) }
            XCTAssertEqual(written, ones.count)
            var player = Player()
            player.prepare(sampleRate: rate, maxFrames: 2 * span)
            player.attach(ring)
            player.setPlaying(true)
            let rise = render(&player, frames: 2 * span)
            player.setPlaying(false)
            let fall = render(&player, frames: 2 * span)
            check(rise, reaching: 1, fadeFrames: fade, "play at \(rate) Hz")
            check(fall, reaching: 0, fadeFrames: fade, "stop at \(rate) Hz")
        }
    }

    /// `x` moves monotonically from the other end to `target` in even steps of 1/`fadeFrames`,
    /// arrives within a frame of `fadeFrames`, and stays there.
    func check(_ x: [Float], reaching target: Float, fadeFrames: Double, _ what: String) {
        let step = Float(1 / fadeFrames)
        let start: Float = 1 - target
        XCTAssertEqual(x[0], start + (target - start) * step, accuracy: 1e-6, "\(what): the first step from \(start)")
        guard let arrival = x.firstIndex(of: target) else { return XCTFail("\(what): never reached \(target)") }
        XCTAssertEqual(Double(arrival + 1), fadeFrames, accuracy: 1, "\(what): the fade's length in frames")
        for i in 1..<arrival {
            XCTAssertEqual(abs(x[i] - x[i - 1]), step, accuracy: 1e-5, "\(what): step at frame \(i)")
        }
        XCTAssertTrue(x[arrival...].allSatisfy { $0 == target }, "\(what): stays at \(target)")
    }

    func render(_ player: inout Player, frames: Int) -> [Float] {
        var l = [Float](repeating: 0, count: frames), r = l, sl = l, sr = l
        l.withUnsafeMutableBufferPointer { lp in r.withUnsafeMutableBufferPointer { rp in
            sl.withUnsafeMutableBufferPointer { slp in sr.withUnsafeMutableBufferPointer { srp in
                player.process(left: lp.baseAddress!, right: rp.baseAddress!, scratchLeft: slp.baseAddress!,
                               scratchRight: srp.baseAddress!, frames: frames)
            }}
        }}
        XCTAssertEqual(l, r)
        return l
    }
}
