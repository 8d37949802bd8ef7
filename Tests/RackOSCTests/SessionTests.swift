import Foundation
import XCTest
import RackEngine
import RackFiles
@testable import RackOSC
import RackWire
import RackTestSupport

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
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(Array(lines.prefix(5)), [
            "# recorded by rack run: TIME ADDRESS ARGS..., times in seconds from the start",
            "rate 48000 # the engine's rate, which rack render renders at",
            "0.000000 /rack/cutoff 800 0.010000",
            "0.005333 /rack/gain 12",
            "# 0.026667 preset Warm recalled over 0.100000 s: its values follow",
        ], text)
        XCTAssertEqual(lines.last, "0.032000 /rack/player/stop", text)
        // The recall as the values it set, every parameter of the table with its ramp: the file
        // replays where no preset "Warm" exists.
        let warm = try XCTUnwrap(recording.controller.presets.preset(named: "Warm")).state
        let recall = Automation.parse(lines.dropFirst(5).dropLast().joined(separator: "\n") + "\n", presetNames: [],
                                      presetAtIndex: { _ in nil })
        XCTAssertEqual(recall.diagnostics.map(\.description), [], "it checks with no presets at all")
        XCTAssertEqual(recall.events.count, Parameters.all.count, text)
        for (event, spec) in zip(recall.events, Parameters.all) {
            XCTAssertEqual(event.time, 0.026667, accuracy: 1e-9)
            guard case let .set(id, value, ramp) = event.action else { XCTFail("\(event)"); continue }
            XCTAssertEqual(id, spec.id)
            XCTAssertEqual(Float(value), Float(warm[spec.id]), spec.name)
            XCTAssertEqual(ramp, 0.1)
        }
        let presets = recording.controller.presets
        let parsed = Automation.parse(text, presetNames: Set(presets.all.map(\.name)), presetAtIndex: { presets.preset(index: $0)?.name })
        XCTAssertEqual(parsed.diagnostics.map(\.description), [], "rack check accepts it")
    }

    /// Without `--record` nothing is written: the same session in an empty working directory
    /// leaves it empty, while with a relative path (the control) it leaves that one file.
    func testNoRecordingWithoutAPath() throws {
        let previous = FileManager.default.currentDirectoryPath
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        func session(recordPath: String?) throws -> [String] {
            let directory = try makeTemporaryDirectory("rack-no-recording")
            XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(directory))
            let rig = Rig(recordPath: recordPath)
            rig.send("/rack/mix", [.float(10)])
            rig.settle()
            rig.controller.flushRecording()
            XCTAssertEqual(rig.outbox.sent.count, 0)
            return try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        }
        XCTAssertEqual(try session(recordPath: nil), [], "no path: no file")
        XCTAssertEqual(try session(recordPath: "session.txt"), ["session.txt"], "the control: a path, a file")
    }

    func testTheRecordingIsAnAppendOnlyJournal() throws {
        let path = Rig().temporaryDirectory() + "/r.txt"
        let engine = Engine(sampleRate: 48_000, maxFrames: 256)
        let recorder = SessionRecorder(path: path)
        func lines() throws -> [String] { try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init) }
        XCTAssertEqual(try lines().count, 1, "the header is there from the start")
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        recorder.record(AppliedEvent(.set(.mix, 10, ramp: .standard), sampleTime: 0), engine: engine)
        XCTAssertEqual(try lines().last, "0.000000 /rack/mix 10", "in the file at once, no flush needed")
        recorder.record(AppliedEvent(.set(.mix, 20, ramp: .frames(24_000)), sampleTime: 48_000), engine: engine)
        XCTAssertEqual(try lines().last, "1.000000 /rack/mix 20 0.500000")
        try recorder.flushIfDue(now: 10, engine: engine)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int, inode,
                       "appended to, never replaced")
    }

    func testAnEngineAtAnotherRateGoesOnWhereTheOldOneHadGot() throws {
        let path = Rig().temporaryDirectory() + "/r.txt"
        let old = Engine(sampleRate: 48_000, maxFrames: 256)
        let recorder = SessionRecorder(path: path)
        recorder.record(AppliedEvent(.set(.mix, 10, ramp: .standard), sampleTime: 24_000), engine: old)
        var l = [Float](repeating: 0, count: 256), r = l
        for _ in 0..<375 { _ = old.render(frames: 256, inputLeft: nil, inputRight: nil, outputLeft: &l, outputRight: &r) }   // 2 s
        try recorder.flushIfDue(now: 1, engine: old)
        let new = Engine(sampleRate: 44_100, maxFrames: 256)   // its samples count from 0 again
        recorder.record(AppliedEvent(.set(.mix, 20, ramp: .standard), sampleTime: 4_410), engine: new)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("0.500000 /rack/mix 10\n# 2.000000: the JACK server is back at 44100 Hz (was 48000 Hz)\n2.100000 /rack/mix 20\n"), text)
        let parsed = Automation.parse(text, presetNames: [], presetAtIndex: { _ in nil })
        XCTAssertEqual(parsed.diagnostics, [])
    }

    func testAnUnwritableRecordingGoesToTheLog() {
        let rig = Rig(recordPath: "/proc/rack-cannot-write-here/r.txt")
        var lines: [String] = []
        rig.controller.log = { lines.append($0) }
        rig.controller.flushRecording()
        XCTAssertEqual(lines.count, 1)
    }

    /// On a full disk the recording said "(retrying)" once and `rack run` exited 0
    /// with an empty file. Lines still unwritten at exit are a loss the final flush throws,
    /// even after the write problem was reported, and the controller keeps it for the exit code.
    func testARecordingOnAFullDiskIsALossAtExit() throws {
        try XCTSkipUnless(FileManager.default.isWritableFile(atPath: "/dev/full"), "needs /dev/full")
        let engine = Engine(sampleRate: 48_000, maxFrames: 256)
        let recorder = SessionRecorder(path: "/dev/full")
        recorder.record(AppliedEvent(.set(.mix, 10, ramp: .standard), sampleTime: 0), engine: engine)
        XCTAssertThrowsError(try recorder.flushIfDue(now: 10, engine: engine), "the first problem is reported")
        XCTAssertThrowsError(try recorder.flush(engine: engine)) { error in
            let message = (error as? RackError)?.message ?? ""
            XCTAssertTrue(message.hasPrefix("the recording '/dev/full' is incomplete: its last 3 lines could not be written"), message)
        }
        let rig = Rig(recordPath: "/dev/full")
        rig.controller.log = { _ in }
        XCTAssertNil(rig.controller.recordingFailure)
        rig.controller.flushRecording()
        XCTAssertEqual(rig.controller.recordingFailure?.status, .ioError)
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

    func testTheSessionServerIsRecognisedHoweverItsAddressIsSpelled() throws {
        // A stock /etc/hosts maps the host name to 127.0.1.1; nsmd answers from 127.0.0.1.
        let local = try XCTUnwrap(NSMClient(url: "osc.udp://127.0.1.1:9999/"))
        XCTAssertTrue(local.isServer(try XCTUnwrap(OSCEndpoint("127.0.1.1:9999"))))
        XCTAssertTrue(local.isServer(try XCTUnwrap(OSCEndpoint("127.0.0.1:9999"))), "any loopback address, same port")
        XCTAssertFalse(local.isServer(try XCTUnwrap(OSCEndpoint("127.0.0.1:9998"))), "another port is another program")
        XCTAssertFalse(local.isServer(try XCTUnwrap(OSCEndpoint("10.0.0.1:9999"))))
        // A server elsewhere is recognised by its own address only.
        let remote = try XCTUnwrap(NSMClient(url: "osc.udp://10.1.2.3:9999/"))
        XCTAssertTrue(remote.isServer(try XCTUnwrap(OSCEndpoint("10.1.2.3:9999"))))
        XCTAssertFalse(remote.isServer(try XCTUnwrap(OSCEndpoint("127.0.0.1:9999"))))
        // A host name is resolved (localhost: a loopback address).
        let named = try XCTUnwrap(NSMClient(url: "osc.udp://localhost:9999/"))
        XCTAssertTrue(named.isServer(try XCTUnwrap(OSCEndpoint("127.0.0.1:9999"))))
    }

    /// The open is held to `--name`'s rule and to absolute paths before anything is read.
    func testAnOpenRackCannotTakeIsRefusedWithItsReason() throws {
        func problem(_ path: String, _ id: String) -> String? {
            NSMClient.SessionOpen(sessionPath: path, displayName: "d", clientID: id).problem
        }
        XCTAssertNil(problem("/s/rack.nA", "rack.nA"))
        XCTAssertNil(problem("/s/x", String(repeating: "x", count: ClientName.maximumBytes)))
        XCTAssertEqual(problem("/s/x", String(repeating: "x", count: 121)), "client id '\(String(repeating: "x", count: 121))' must be 1…63 bytes")
        XCTAssertEqual(problem("/s/x", ""), "client id '' must be 1…63 bytes")
        XCTAssertEqual(problem("/s/x", "evil:name"), "client id 'evil:name' must not contain ':'")
        XCTAssertEqual(problem("/s/x", "a\u{1}b"), "client id 'a\u{1}b' must not contain control characters")
        XCTAssertEqual(problem("session/x", "x"), "session path 'session/x' is not absolute")
        XCTAssertEqual(problem("", "x"), "session path '' is not absolute")
        let nsm = try XCTUnwrap(NSMClient(url: "osc.udp://127.0.0.1:7777/"))
        XCTAssertThrowsError(try nsm.take(.init(sessionPath: "rel", displayName: "d", clientID: "x"))) {
            XCTAssertEqual(($0 as? RackError)?.status, .dataError)
        }
        XCTAssertNil(nsm.sessionPath, "nothing taken from a refused open")
    }

    func testAStateFileThatIsNoRegularFileIsRefused() throws {
        let dir = Rig().temporaryDirectory() + "/rack.nF"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(dir + "/state.json", 0o600), 0)
        let nsm = try XCTUnwrap(NSMClient(url: "osc.udp://127.0.0.1:7777/"))
        XCTAssertThrowsError(try nsm.take(.init(sessionPath: dir, displayName: "d", clientID: "rack.nF"))) {
            XCTAssertEqual(($0 as? RackError)?.status, .noInput)
            XCTAssertEqual(($0 as? RackError)?.message, "session state '\(dir)/state.json' is not a regular file")
        }
    }

    func testASaveGoesOnlyToAnAbsoluteSessionPath() throws {
        let rig = Rig()
        let nsm = try XCTUnwrap(NSMClient(url: "osc.udp://127.0.0.1:7777/"))
        nsm.sessionPath = "relative/session"
        rig.controller.nsm = nsm
        rig.send("/nsm/client/save", from: nsm.server)
        XCTAssertEqual(rig.outbox.take(for: nsm.server), [OSCMessage("/error", [.string("/nsm/client/save"), .int(NSMClient.generalError),
                                                                                 .string("no session with an absolute path is open")])])
        XCTAssertFalse(FileManager.default.fileExists(atPath: "relative/session"))
    }
}
