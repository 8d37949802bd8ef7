import Foundation
import XCTest
import RackEngine
import RackIO
@testable import RackOSC
import RackTestSupport
import RackWire

/// `/rack/player/...`, and the player slot behind them (one swap in flight at a time).
final class PlayerCommandTests: XCTestCase {
    func testLoadPlayAndStop() throws {
        let rig = Rig()
        let tone = try rig.writeTone(seconds: 2)
        rig.send("/rack/player/load", [.string(tone)])
        XCTAssertEqual(rig.replies(), [])
        XCTAssertEqual(rig.controller.playerPath, tone)
        rig.render(blocks: 9)   // 10 blocks of 256 frames in all
        XCTAssertEqual(rig.controller.playerSeconds, 2560 / 48_000, accuracy: 1e-9)
        rig.send("/rack/player/stop")
        let stopped = rig.controller.playerSeconds
        rig.render(blocks: 4)
        XCTAssertEqual(rig.controller.playerSeconds, stopped, "stopped")
        rig.send("/rack/player/play")
        rig.render(blocks: 4)
        XCTAssertGreaterThan(rig.controller.playerSeconds, stopped, "playing again")
        XCTAssertEqual(rig.replies(), [])
        rig.controller.shutDown()
    }

    func testAFileThatDoesNotOpenIsRefusedAndTheOldOneKeepsPlaying() throws {
        let rig = Rig()
        let tone = try rig.writeTone(seconds: 2)
        rig.send("/rack/player/load", [.string(tone)])
        let missing = rig.temporaryDirectory() + "/missing.wav"
        rig.send("/rack/player/load", [.string(missing)])
        let reply = rig.replies()
        XCTAssertEqual(reply.count, 1)
        XCTAssertEqual(reply.first?.address, "/rack/error")
        XCTAssertEqual(reply.first?.arguments.first, .string("/rack/player/load"))
        let reason = try XCTUnwrap(reply.first?.arguments.last?.string)
        XCTAssertTrue(reason.contains("missing.wav") && !reason.hasPrefix("rack: "), reason)
        XCTAssertEqual(rig.controller.playerPath, tone)
        rig.controller.shutDown()
    }

    func testStateTellsTheFileTheTransportAndTheLoop() throws {
        let rig = Rig()
        rig.send("/rack/player/state")
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/player/state", [.string(""), .int(1), .int(1)])])
        let tone = try rig.writeTone(seconds: 1)
        rig.send("/rack/player/load", [.string(tone)])
        rig.send("/rack/player/stop")
        rig.send("/rack/player/loop", [.int(0)])
        rig.send("/rack/player/state")
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/player/state", [.string(tone), .int(0), .int(0)])])
        XCTAssertEqual(rig.controller.playerStateMessage, OSCMessage("/rack/player/state", [.string(tone), .int(0), .int(0)]))
        rig.controller.shutDown()
    }

    func testLoop() throws {
        let rig = Rig()
        XCTAssertTrue(rig.controller.loop)
        rig.send("/rack/player/load", [.string(try rig.writeTone(seconds: 1))])
        rig.send("/rack/player/loop", [.int(0)])
        XCTAssertFalse(rig.controller.loop)
        XCTAssertEqual(rig.controller.player.stream?.loop, false, "passed on to the stream playing")
        rig.send("/rack/player/loop", [.float(1)])
        XCTAssertTrue(rig.controller.loop)
        XCTAssertEqual(rig.controller.player.stream?.loop, true)
        for bad: OSCValue in [.float(0.5), .string("on"), .int(-1)] {
            rig.send("/rack/player/loop", [bad])
            XCTAssertEqual(rig.replies(), [rig.error("/rack/player/loop", "expects 0 or 1")], "\(bad)")
        }
        rig.controller.shutDown()
    }

    func testSeek() throws {
        let rig = Rig()
        rig.send("/rack/player/seek", [.float(1)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/player/seek", "no file is loaded")])
        rig.send("/rack/player/load", [.string(try rig.writeTone(seconds: 2))])
        rig.send("/rack/player/seek", [.float(.infinity)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/player/seek", "seconds must be finite")])
        rig.send("/rack/player/seek", [.float(1.5)])
        XCTAssertEqual(rig.replies(), [])
        XCTAssertEqual(rig.controller.player.stream?.startSeconds, 1.5)
        // The swap before is still crossfading: these wait, and only the latest is kept.
        rig.send("/rack/player/seek", [.float(99)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/player/seek", "seek 99 s clamped to 2 s")])
        rig.send("/rack/player/seek", [.int(-1)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/player/seek", "seek -1 s clamped to 0 s")])
        rig.send("/rack/player/seek", [.float(0.25)])
        XCTAssertEqual(rig.controller.player.stream?.startSeconds, 1.5, "deferred")
        XCTAssertEqual(rig.controller.player.deferred?.startSeconds, 0.25)
        for _ in 0..<100 where rig.controller.player.deferred != nil { rig.settle(blocks: 1) }
        XCTAssertNil(rig.controller.player.deferred, "run once the engine let go of the old ring")
        XCTAssertEqual(rig.controller.player.stream?.startSeconds, 0.25)
        XCTAssertEqual(rig.replies(), [])
        rig.controller.shutDown()
    }

    func testASeekGoesToTheNewestFileAskedFor() throws {
        let rig = Rig()
        let first = try rig.writeTone(seconds: 1, name: "first.wav"), second = try rig.writeTone(seconds: 3, name: "second.wav")
        rig.send("/rack/player/load", [.string(first)])
        rig.send("/rack/player/seek", [.float(0.5)])          // a swap in flight
        rig.send("/rack/player/load", [.string(second)])      // waits for it
        rig.send("/rack/player/seek", [.float(2.5)])          // in the second file: not clamped to the first's 1 s
        XCTAssertEqual(rig.replies(), [])
        XCTAssertEqual(rig.controller.player.deferred?.path, second)
        XCTAssertEqual(rig.controller.player.deferred?.startSeconds, 2.5)
        for _ in 0..<100 where rig.controller.player.deferred != nil { rig.settle(blocks: 1) }
        XCTAssertEqual(rig.controller.playerPath, second)
        XCTAssertEqual(rig.controller.player.stream?.startSeconds, 2.5)
        rig.controller.shutDown()
    }

    /// A load refused because the render thread's queue is full: the sender gets `busy`, the
    /// file playing plays on, the refused stream (dropped at once, its reader thread maybe not
    /// yet running) ends its thread, which closes its file, and the same load goes through once
    /// the queue has room.
    func testABusyQueueRefusesALoadAndTheOldFilePlaysOn() throws {
        let rig = Rig(queueCapacity: 4)
        let first = try rig.writeTone(seconds: 2, name: "first.wav"), second = try rig.writeTone(seconds: 2, name: "second.wav")
        rig.send("/rack/player/load", [.string(first)])
        rig.settle()
        XCTAssertEqual(rig.controller.playerPath, first)
        XCTAssertTrue(waitUntil(seconds: 5) { Self.descriptors(naming: first) == 1 }, "the first file is open")
        while rig.engine.post(EngineEvent(.now, .marker(0))) {}
        rig.controller.handle(OSCMessage("/rack/player/load", [.string(second)]), timeTag: .immediately, from: rig.client)
        XCTAssertEqual(rig.replies(), [rig.error("/rack/player/load", "busy: the render thread's queue is full")])
        XCTAssertEqual(rig.controller.playerPath, first, "the file playing is kept")
        XCTAssertTrue(waitUntil(seconds: 5) { Self.descriptors(naming: second) == 0 },
                      "the refused stream's thread ended and closed its file")
        XCTAssertEqual(Self.descriptors(naming: first), 1, "the first file is still open")
        rig.settle(blocks: 4)
        XCTAssertGreaterThan(rig.left.map(abs).max()!, 0.1, "the first file is heard")
        rig.send("/rack/player/load", [.string(second)])
        XCTAssertEqual(rig.replies(), [])
        for _ in 0..<100 where rig.controller.playerPath != second { rig.settle(blocks: 1) }
        XCTAssertEqual(rig.controller.playerPath, second, "the load goes through once the queue has room")
        rig.controller.shutDown()
    }

    /// The open file descriptors of this process that name `path` (from /proc).
    static func descriptors(naming path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }.count
    }

    func testABusyQueueRefusesTransport() {
        let rig = Rig(queueCapacity: 4)
        while rig.engine.post(EngineEvent(.now, .marker(0))) {}
        rig.controller.handle(OSCMessage("/rack/player/stop"), timeTag: .immediately, from: rig.client)
        XCTAssertEqual(rig.replies(), [rig.error("/rack/player/stop", "busy: the render thread's queue is full")])
    }

    func testANewEngineGetsTheSameFileFromTheSamePlace() throws {
        let rig = Rig()
        let tone = try rig.writeTone(seconds: 2)
        rig.send("/rack/player/load", [.string(tone)])
        rig.render(blocks: 19)
        rig.controller.tick(now: 1000)   // notes the position
        let position = rig.controller.player.lastSeconds
        XCTAssertEqual(position, 20 * 256 / 48_000, accuracy: 1e-9)
        rig.host.engine = Engine(sampleRate: 44_100, maxFrames: 256)
        rig.controller.engineReplaced()
        XCTAssertEqual(rig.controller.playerPath, tone)
        XCTAssertEqual(rig.controller.player.stream?.startSeconds, position)
        XCTAssertEqual(rig.controller.player.stream?.sampleRate, 44_100)
        rig.controller.shutDown()
    }

    func testAFailedReloadWithoutASenderGoesToTheLog() throws {
        let rig = Rig()
        var lines: [String] = []
        rig.controller.log = { lines.append($0) }
        rig.controller.loadPlayer(path: rig.temporaryDirectory() + "/gone.wav", startSeconds: 0, from: nil, address: "")
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(!lines[0].hasPrefix("rack: ") && lines[0].contains("gone.wav"), "the CLI adds the program name: \(lines)")
        XCTAssertEqual(rig.outbox.sent.count, 0)
    }

    /// A file truncated while it plays: `/rack/error /rack/player "stopped: …"` comes once the
    /// transport has stopped, fade and all, so the position read with it is where it stays.
    /// (Reported as soon as the reader failed, it came before the render thread had taken the
    /// stop, and the position moved on by the fade's period after it.)
    func testAFileThatBreaksWhilePlayingIsReportedWhereTheTransportStands() throws {
        let rig = Rig()
        rig.send("/rack/subscribe")
        let tone = try rig.writeTone(seconds: 10)
        rig.send("/rack/player/load", [.string(tone)])
        rig.render(blocks: 4)
        _ = rig.replies()
        // The data ends at 3 s (8 bytes a frame: stereo float).
        let size = try FileManager.default.attributesOfItem(atPath: tone)[.size] as! Int
        XCTAssertEqual(truncate(tone, off_t(size - 7 * 48_000 * 8)), 0)
        var reported: [OSCMessage] = []
        var positionWhenReported = 0.0
        let deadline = Date().addingTimeInterval(30)
        while reported.isEmpty && Date() < deadline {
            rig.render()
            rig.controller.tick(now: rig.now)
            reported = rig.replies().filter { $0.address == "/rack/error" }
            positionWhenReported = rig.controller.playerSeconds
            usleep(500)   // the reader thread reads ahead
        }
        XCTAssertEqual(reported.count, 1, "reported once")
        XCTAssertEqual(reported.first?.arguments.first, .string("/rack/player"))
        XCTAssertLessThan(positionWhenReported, 3, "the transport stopped before the damage")
        for _ in 0..<20 {
            rig.render()
            rig.controller.tick(now: rig.now)
        }
        XCTAssertEqual(rig.controller.playerSeconds, positionWhenReported, "the transport stands where it was reported")
        XCTAssertEqual(rig.replies().filter { $0.address == "/rack/error" }, [], "reported once")
        rig.controller.shutDown()
    }

    func testAnAdoptedStreamLoopsAsTheControllerSays() throws {
        let rig = Rig()
        rig.send("/rack/player/loop", [.int(0)])
        let stream = try PlayerStream(path: try rig.writeTone(seconds: 1), sampleRate: 48_000, loop: true)
        rig.controller.adoptPlayer(stream)
        XCTAssertFalse(stream.loop)
        XCTAssertEqual(rig.controller.playerPath, stream.path)
        rig.controller.shutDown()
    }
}
