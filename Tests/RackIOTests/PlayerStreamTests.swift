import Foundation
import RackDSP
import RackEngine
import XCTest
import RackTestSupport
@testable import RackIO

/// `PlayerStream`: its reader thread, file and ring end with the stream (however soon it is
/// dropped), and its loop flag acts on what the player hears, not on what was read ahead.
final class PlayerStreamTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = try makeTemporaryDirectory("rack-stream-tests")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// A float WAV whose frame i holds `(i + 1) / frames` on both channels: every frame says
    /// where in the file it comes from.
    private func writeRamp(frames: Int, rate: Double, name: String) throws -> String {
        let path = dir + "/" + name
        let samples = (0..<frames).map { Float($0 + 1) / Float(frames) }
        let w = try AudioFileWriter(path: path, sampleRate: rate, format: .float)
        try samples.withUnsafeBufferPointer { p in try w.write(left: p.baseAddress!, right: p.baseAddress!, frames: frames) }
        try w.commit(durable: false)
        return path
    }

    /// Threads and open file descriptors of this process (/proc/self).
    private func threadsAndFiles() throws -> (threads: Int, files: Int) {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("Threads:") })
        let threads = try XCTUnwrap(Int(line.split(separator: "\t").last!.trimmingCharacters(in: .whitespaces)))
        let files = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        return (threads, files)
    }

    /// Waits up to `seconds` for the thread count to come down to `threads`, then until it has
    /// stayed put for 0.3 s (threads of streams dropped earlier finish the chunk they read).
    private func waitForThreads(atMost threads: Int, seconds: Double) throws -> (threads: Int, files: Int) {
        let deadline = Date().addingTimeInterval(seconds)
        var now = try threadsAndFiles()
        var steadySince = Date()
        while Date() < deadline {
            usleep(20_000)
            let next = try threadsAndFiles()
            if next != now { steadySince = Date() }
            now = next
            if now.threads <= threads && Date().timeIntervalSince(steadySince) >= 0.3 { break }
        }
        return now
    }

    func testDroppedStreamsEndTheirThreadsAndCloseTheirFiles() throws {
        let plain = try writeRamp(frames: 48_000, rate: 48_000, name: "plain.wav")
        let resampled = try writeRamp(frames: 44_100, rate: 44_100, name: "resampled.wav")
        // Warm up (the first stream starts Foundation's and libsamplerate's one-time state).
        for path in [plain, resampled] { _ = try PlayerStream(path: path, sampleRate: 48_000, loop: true) }
        let before = try waitForThreads(atMost: .max, seconds: 5)
        // Dropped at once, before its thread has run (a load refused by a full queue), and
        // dropped after a while (a retired stream): 400 streams in all.
        for i in 0..<400 {
            let s = try PlayerStream(path: i % 2 == 0 ? plain : resampled, sampleRate: 48_000,
                                     startSeconds: Double(i % 7) * 0.1, loop: i % 3 == 0)
            if i % 4 == 0 { usleep(2_000) }
            _ = s
        }
        let after = try waitForThreads(atMost: before.threads, seconds: 5)
        // At most as many as before (runtime worker threads may have ended meanwhile); a leak
        // would leave up to 400 more of each.
        XCTAssertLessThanOrEqual(after.threads, before.threads, "reader threads left running")
        XCTAssertLessThanOrEqual(after.files, before.files, "file descriptors left open")
    }

    func testStopWaitsForTheThreadAndIsIdempotent() throws {
        let path = try writeRamp(frames: 4_800, rate: 48_000, name: "short.wav")
        let before = try waitForThreads(atMost: .max, seconds: 5)
        let s = try PlayerStream(path: path, sampleRate: 48_000, loop: true)
        s.stop()
        s.stop()
        let after = try waitForThreads(atMost: before.threads, seconds: 2)
        XCTAssertLessThanOrEqual(after.threads, before.threads)
    }

    /// Pulls `frames` frames through `player` in blocks of 256, waiting for the reader thread
    /// where the ring is short (the test runs faster than real time); returns the left channel.
    private func pull(_ player: inout Player, _ ring: StereoRing, frames: Int) -> [Float] {
        let block = 256
        var out = [Float]()
        var l = [Float](repeating: 0, count: block), r = l, sl = l, sr = l
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            var waited = 0
            while ring.availableToRead < n && !ring.isFinished && waited < 200 { usleep(5_000); waited += 1 }
            for i in 0..<n { l[i] = 0; r[i] = 0 }
            l.withUnsafeMutableBufferPointer { lp in r.withUnsafeMutableBufferPointer { rp in
                sl.withUnsafeMutableBufferPointer { slp in sr.withUnsafeMutableBufferPointer { srp in
                    player.process(left: lp.baseAddress!, right: rp.baseAddress!, scratchLeft: slp.baseAddress!,
                                   scratchRight: srp.baseAddress!, frames: n)
                }}
            }}
            out += l[0..<n]
            done += n
        }
        return out
    }

    private func makePlayer(_ stream: PlayerStream) -> Player {
        var p = Player()
        p.prepare(sampleRate: 48_000, maxFrames: 256)
        p.setPlaying(true)
        p.attach(stream.ring)
        return p
    }

    func testLoopOffStopsAtTheEndOfThePassBeingHeard() throws {
        // 0.5 s: the 1 s ring holds two passes ahead when loop is turned off.
        let frames = 24_000
        let path = try writeRamp(frames: frames, rate: 48_000, name: "ramp.wav")
        let stream = try PlayerStream(path: path, sampleRate: 48_000, loop: true)
        defer { stream.stop() }
        var player = makePlayer(stream)
        // 1.3 s with loop on: two pass ends crossed, 0.3 s into the third pass.
        let first = pull(&player, stream.ring, frames: 62_400)
        XCTAssertEqual(first[30_000], Float(30_000 - frames + 1) / Float(frames), "second pass plays the file again")
        XCTAssertEqual(stream.positionSeconds, 0.3, accuracy: 1e-9)
        // The reader runs ahead into the next pass: more is readable than the 0.2 s left of this one.
        XCTAssertTrue(waitUntil(seconds: 5) { stream.ring.availableToRead > 9_600 }, "the reader never reached the next pass")
        stream.loop = false
        let rest = pull(&player, stream.ring, frames: 24_000)
        // The 0.2 s left of this pass, then nothing.
        let left = 9_600
        for i in [0, 100, left - 1] {
            XCTAssertEqual(rest[i], Float(14_400 + i + 1) / Float(frames), "frame \(i) after loop off")
        }
        XCTAssertEqual(rest[left...].map { abs($0) }.max(), 0, "the next pass must not be heard")
        XCTAssertTrue(player.isAtEnd)
        XCTAssertEqual(player.underrunFrames, 0, "standing at the end is not an underrun")
        XCTAssertEqual(stream.positionSeconds, 0.5, accuracy: 1e-9, "at the end of the file")
        // Loop on after the end: the file again from its first frame, fading in over 5 ms.
        stream.loop = true
        let again = pull(&player, stream.ring, frames: 4_800)
        XCTAssertLessThan(again[0], 1e-6, "fades in from silence")
        for i in [240, 1_000, 4_799] {
            XCTAssertEqual(again[i], Float(i + 1) / Float(frames), accuracy: 1e-6, "frame \(i) of the restart")
        }
        XCTAssertEqual(stream.positionSeconds, 0.1, accuracy: 1e-9)
    }

    func testLoopOffAfterASeekStopsAtTheFileEndWhenResampled() throws {
        // 44.1 kHz played at 48 kHz: the pass ends fall where the reader's rounding puts them.
        let path = try writeRamp(frames: 22_050, rate: 44_100, name: "ramp44.wav")
        let stream = try PlayerStream(path: path, sampleRate: 48_000, startSeconds: 0.2, loop: false)
        defer { stream.stop() }
        let passes = try XCTUnwrap(stream.ring.passes)
        XCTAssertEqual(passes.end(ofPass: 1), 24_000 - 9_600)
        var player = makePlayer(stream)
        _ = pull(&player, stream.ring, frames: 20_000)
        XCTAssertEqual(player.framesPlayed, 14_400, "stops at the end of the file, 0.3 s after 0.2 s")
        XCTAssertTrue(player.isAtEnd)
        XCTAssertEqual(stream.positionSeconds, 0.5, accuracy: 1e-9)
        stream.loop = true
        _ = pull(&player, stream.ring, frames: 24_000 + 4_800)
        XCTAssertEqual(player.framesPlayed, 14_400 + 28_800)
        XCTAssertEqual(stream.positionSeconds, 0.1, accuracy: 1e-9, "in the third pass, 0.1 s in")
        XCTAssertEqual(player.underrunFrames, 0)
    }
}
