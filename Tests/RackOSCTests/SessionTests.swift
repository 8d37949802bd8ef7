import Foundation
import XCTest
import RackEngine
@testable import RackOSC

/// `--record` (every applied change, as an automation file) and the session manager's save.
final class SessionTests: XCTestCase {
    func testTheRecordingHoldsWhatWasAppliedAtItsSample() throws {
        let path = Rig().temporaryDirectory() + "/session.txt"
        let recording = Rig(recordPath: path)
        recording.send("/rack/cutoff", [.float(800), .float(0.01)])
        recording.send("/rack/gain", [.float(40)])           // clamped: recorded as applied
        recording.send("/rack/cutoff", [.string("bogus")])   // refused: not recorded
        recording.render(blocks: 2)
        recording.send("/rack/preset", [.string("Warm"), .float(0.1)])
        recording.send("/rack/player/stop")
        recording.settle()
        recording.controller.flushRecording()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(text, """
            # recorded by rack run at 48000 Hz: TIME ADDRESS ARGS...
            0.000000 /rack/cutoff 800 0.010000
            0.005333 /rack/gain 12
            0.026667 /rack/preset Warm 0.100000
            0.032000 /rack/player/stop

            """, "a recall is one preset line, not its five parameters")
        let presets = recording.controller.presets
        let parsed = Automation.parse(text, presetNames: Set(presets.all.map(\.name)), presetAtIndex: { presets.preset(index: $0)?.name })
        XCTAssertEqual(parsed.diagnostics.map(\.description), [], "rack check accepts it")
    }

    func testNoRecordingWithoutAPath() {
        let rig = Rig()
        rig.send("/rack/mix", [.float(10)])
        rig.settle()
        rig.controller.flushRecording()
        XCTAssertEqual(rig.outbox.sent.count, 0)
    }

    func testTheRecorderFlushesAtMostEveryTwoSeconds() throws {
        let path = Rig().temporaryDirectory() + "/r.txt"
        let recorder = SessionRecorder(path: path)
        try recorder.flushIfDue(now: 0.5, sampleRate: 48_000)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "nothing recorded yet")
        recorder.record("0.000000 /rack/mix 10")
        try recorder.flushIfDue(now: 2.5, sampleRate: 48_000)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        recorder.record("1.000000 /rack/mix 20")
        try recorder.flushIfDue(now: 4.5, sampleRate: 48_000)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count, 2, "not yet: 2 s since the last write")
        try recorder.flushIfDue(now: 4.6, sampleRate: 48_000)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count, 3)
    }

    func testAnUnwritableRecordingGoesToTheLog() {
        let rig = Rig(recordPath: "/proc/rack-cannot-write-here/r.txt")
        var lines: [String] = []
        rig.controller.log = { lines.append($0) }
        rig.controller.flushRecording()
        XCTAssertEqual(lines.count, 1)
    }

    func testSessionManagerSaveWritesTheStateAndAnswers() throws {
        let rig = Rig()
        let nsm = NSMClient(url: "osc.udp://127.0.0.1:7777/")!
        let dir = rig.temporaryDirectory() + "/session"
        nsm.sessionPath = dir
        rig.controller.nsm = nsm
        rig.send("/rack/mix", [.float(10)])
        rig.settle()
        XCTAssertEqual(rig.outbox.take(for: nsm.server), [OSCMessage("/nsm/client/is_dirty")])
        rig.send("/nsm/client/save", from: nsm.server)
        XCTAssertEqual(rig.outbox.take(for: nsm.server), [OSCMessage("/reply", [.string("/nsm/client/save"), .string("saved")]),
                                                          OSCMessage("/nsm/client/is_clean")])
        let saved = try SessionState.load(path: dir + "/state.json")
        XCTAssertEqual(saved.state[.mix], 10)
        XCTAssertNil(saved.playerPath)
        for ack in ["/reply", "/error", "/nsm/client/session_is_loaded", "/nsm/client/open"] {
            rig.send(ack, [.string("x")], from: nsm.server)
        }
        XCTAssertEqual(rig.outbox.sent.count, 0, "acknowledgements get no answer")
        rig.send("/nsm/client/save")
        XCTAssertEqual(rig.replies(), [rig.error("/nsm/client/save", "unknown address")], "only the session manager may")
    }
}
