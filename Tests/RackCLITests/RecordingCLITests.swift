import Foundation
import XCTest
import RackTestSupport
import RackIO

/// An offline render loops as the live player does, the README's session
/// commands print no warning, and `--record` into a missing directory is one line naming it.
final class RecordingCLITests: XCTestCase {
    var dir = ""
    var env: [String: String] = [:]
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    override func setUpWithError() throws {
        dir = try makeTemporaryDirectory("rack-record-cli")
        env = ["XDG_CONFIG_HOME": dir + "/config", "XDG_CACHE_HOME": dir + "/cache"]
        try writeTone(dir + "/in.wav", seconds: 1.5)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// A render that loops is the render of the file played three times over: the same
    /// samples, since the reader runs through the file seamlessly (as live); it lasts until the
    /// last change is complete (4.5 s), events past the input's end apply and nothing warns.
    func testALoopingRenderIsTheRenderOfTheFileRepeated() throws {
        let input = try readAll(dir + "/in.wav")
        let writer = try AudioFileWriter(path: dir + "/three.wav", sampleRate: 48_000, format: .float)
        for _ in 0..<3 { try writer.write(left: input.left, right: input.right, frames: input.left.count) }
        try writer.commit()
        let changes = "2.0 /rack/cutoff 800 1\n3.7 /rack/mix 60 0.8\n"
        try ("0 /rack/player/loop 1\n" + changes).write(toFile: dir + "/loop.txt", atomically: true, encoding: .utf8)
        try changes.write(toFile: dir + "/plain.txt", atomically: true, encoding: .utf8)

        let looped = try rack(["render", dir + "/in.wav", dir + "/looped.wav", "--automation", dir + "/loop.txt",
                               "--format", "float"], environment: env)
        looped.assertOK()
        XCTAssertFalse(looped.stderr.contains("warning"), "events past the end of a looping input apply: no warning")
        XCTAssertEqual(looped.stderr.split(separator: "\n").count, 1, "the closing line alone: \(looped.stderr)")
        try rack(["render", dir + "/three.wav", dir + "/three-out.wav", "--automation", dir + "/plain.txt",
                  "--format", "float"], environment: env).assertOK()
        let a = try readAll(dir + "/looped.wav"), b = try readAll(dir + "/three-out.wav")
        XCTAssertEqual(a.info.frames, 216_000)
        XCTAssertEqual(b.info.frames, 216_000)
        let worst = zip(a.left + a.right, b.left + b.right).map { abs($0 - $1) }.max() ?? 1
        XCTAssertEqual(worst, 0, "looped and repeated renders differ by \(worst)")

        // Without the loop line the render plays the file once, the later events ignored (and said).
        let once = try rack(["render", dir + "/in.wav", dir + "/once.wav", "--automation", dir + "/plain.txt"], environment: env)
        once.assertOK()
        XCTAssertEqual(try readAll(dir + "/once.wav").info.frames, 72_000)
        XCTAssertTrue(once.stderr.contains("past the end of the input"), once.stderr)
    }

    /// A recording's rate line is the rate `rack render` renders at (the rate it was heard at),
    /// unless `--rate` says otherwise: a 48 kHz file with `rate 44100` renders at 44.1 kHz.
    func testARecordingsRateLineIsTheRenderRate() throws {
        try "rate 44100 # heard at\n0 /rack/mix 40\n".write(toFile: dir + "/r.txt", atomically: true, encoding: .utf8)
        let heard = try rack(["render", dir + "/in.wav", dir + "/heard.wav", "--automation", dir + "/r.txt"], environment: env)
        heard.assertOK()
        XCTAssertEqual(try AudioFileReader(path: dir + "/heard.wav").info.sampleRate, 44_100, heard.stderr)
        let asked = try rack(["render", dir + "/in.wav", dir + "/asked.wav", "--automation", dir + "/r.txt", "--rate", "48000"],
                             environment: env)
        asked.assertOK()
        XCTAssertEqual(try AudioFileReader(path: dir + "/asked.wav").info.sampleRate, 48_000)
    }

    /// The README's offline commands with Examples/session.txt on the demo loop it is
    /// documented with print no warning (they printed 8), and the render is the 16 s the file
    /// says.
    func testTheREADMEsSessionCommandsPrintNoWarning() throws {
        let session = root.appendingPathComponent("Examples/session.txt").path
        let readme = try Documentation.text()
        XCTAssertTrue(readme.contains("rack render in.wav out.wav --automation Examples/session.txt --format 24"))
        XCTAssertTrue(readme.contains("rack check Examples/session.txt"))
        let loop = try rack(["demo-loop", dir + "/in.wav"], environment: env)
        loop.assertOK()
        let render = try rack(["render", dir + "/in.wav", dir + "/out.wav", "--automation", session, "--format", "24"],
                              environment: env)
        render.assertOK()
        XCTAssertTrue(render.stderr.hasPrefix("rack: rendered 16.00 s to '" + dir + "/out.wav' (48000 Hz, 24;"), render.stderr)
        XCTAssertEqual(render.stderr.split(separator: "\n").count, 1, "the closing line alone: \(render.stderr)")
        XCTAssertEqual(try readAll(dir + "/out.wav").info.durationSeconds, 16, accuracy: 1e-9)
        let check = try rack(["check", session], environment: env)
        check.assertOK()
        XCTAssertEqual(check.stderr, "")
        XCTAssertTrue(check.stdout.contains(" 0 warnings, no errors"), check.stdout)
        let demo = try readAll(dir + "/in.wav").info.durationSeconds
        let length = try rack(["check", session, "--length", String(demo)], environment: env)
        XCTAssertEqual(length.stderr, "", "checked against the demo loop's length")
    }

    /// `--record` into a directory that does not exist: exit 73 before joining JACK, one line
    /// naming the directory.
    func testRecordingIntoAMissingDirectoryIsOneLineNamingIt() throws {
        let path = dir + "/no/such/place/session.txt"
        let r = try rack(["run", "--osc-port", "0", "--http-port", "0", "--no-advertise", "--no-midi", "--record", path],
                         environment: env.merging(["JACK_DEFAULT_SERVER": "rack-record-none"]) { $1 },
                         unsetting: ["NSM_URL"])
        XCTAssertEqual(r.status, 73, r.stderr)
        XCTAssertEqual(r.stderr, "rack: cannot create the recording '\(path)': there is no directory '\(dir)/no/such/place'\n")
    }
}
