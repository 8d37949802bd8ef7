import Foundation
import XCTest
import RackEngine
import RackFiles
import RackTestSupport

/// The command line's bounds on what it is given: plots written as renders are (never over a
/// symbolic link), decimal numbers only, absurd render lengths refused, a bad RF64 named.
final class InputBoundsCLITests: XCTestCase {
    var dir = ""
    var env: [String: String] = [:]

    override func setUpWithError() throws {
        dir = try makeTemporaryDirectory("rack-cli-bounds")
        env = ["XDG_CONFIG_HOME": dir + "/config"]
        try writeTone(dir + "/in.wav", seconds: 0.5)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// One line on stderr, the program's name in front, with `fragment`; the status `code`.
    private func expect(_ args: [String], _ code: Int32, _ fragment: String, line: UInt = #line) throws {
        let r = try rack(args, environment: env)
        XCTAssertEqual(r.status, code, "\(args) → \(r.stderr)", line: line)
        XCTAssertTrue(r.stderr.contains(fragment), "\(args) → \(r.stderr)", line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr, line: line)
    }

    /// `rack plot -o link.svg` replaced the link with a file; `rack render` refused one. Both
    /// refuse it now with the same words (73), and the link and its target are left alone.
    func testAPlotOverASymbolicLinkIsRefusedAsARenderIs() throws {
        try "0 /rack/mix 10\n".write(toFile: dir + "/a.txt", atomically: true, encoding: .utf8)
        try "keep".write(toFile: dir + "/target.svg", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.svg", withDestinationPath: dir + "/target.svg")
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.wav", withDestinationPath: dir + "/target.svg")
        let reason = "is a symbolic link (give the real file's path)"
        try expect(["plot", dir + "/a.txt", "-o", dir + "/link.svg"], 73, reason)
        try expect(["plot", "--response", "-o", dir + "/link.svg"], 73, reason)
        try expect(["render", dir + "/in.wav", dir + "/link.wav"], 73, reason)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/link.svg")
        XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeSymbolicLink)
        XCTAssertEqual(try String(contentsOfFile: dir + "/target.svg", encoding: .utf8), "keep")
    }

    /// `--set cutoff=0x10` was read as 16 Hz: numbers are decimal only, on the command line and
    /// in automation files alike.
    func testNumbersAreDecimalOnly() throws {
        try expect(["render", dir + "/in.wav", dir + "/o.wav", "--set", "cutoff=0x10"], 65, "'0x10' is not a finite decimal number")
        let tail = try rack(["render", dir + "/in.wav", dir + "/o.wav", "--tail", "0x1"], environment: env)
        XCTAssertEqual(tail.status, 64, tail.stderr)
        XCTAssertTrue(tail.stderr.contains("'0x1' is not a finite decimal number"), tail.stderr)
        try "0 /rack/cutoff 0x10\n".write(toFile: dir + "/hex.txt", atomically: true, encoding: .utf8)
        try expect(["check", dir + "/hex.txt"], 65, "hex.txt:1: error: value '0x10' is not a decimal number")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/o.wav"))
        try rack(["render", dir + "/in.wav", dir + "/o.wav", "--set", "cutoff=1.6e3", "--tail", ".5"], environment: env).assertOK()
    }

    /// A loop and an event at 604,000 s passed `rack check` and rendered a week of audio. Times
    /// beyond the longest render are errors of the file; a render longer than it is refused
    /// before anything is written.
    func testARenderLongerThanADayIsRefused() throws {
        let longest = formatNumber(Automation.maximumTimeSeconds)
        try "0 /rack/player/loop 1\n604000 /rack/mix 10\n".write(toFile: dir + "/week.txt", atomically: true, encoding: .utf8)
        try expect(["check", dir + "/week.txt"], 65, "week.txt:2: error: time 604000 is beyond \(longest) s")
        try expect(["render", dir + "/in.wav", dir + "/o.wav", "--automation", dir + "/week.txt"], 65, "week.txt:2:")
        try "0 /rack/player/loop 1\n\(longest) /rack/mix 10 1\n".write(toFile: dir + "/day.txt", atomically: true, encoding: .utf8)
        try expect(["render", dir + "/in.wav", dir + "/o.wav", "--automation", dir + "/day.txt"], 65,
                   "beyond the longest render of \(longest) s (24 h)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/o.wav"))
    }

    /// An RF64 whose ds64 claims 2^64−1 bytes: libsndfile's "unspecified internal error" before;
    /// now the file and what is wrong with it.
    func testAnRF64ClaimingTooMuchIsNamed() throws {
        try writeRF64(dir + "/huge.wav", frames: 100, dataBytes: UInt64.max)
        try expect(["render", dir + "/huge.wav", dir + "/o.wav"], 65,
                   "rack: cannot read '\(dir)/huge.wav': truncated: the header promises 18446744073709551615 bytes of audio but the file holds 400")
    }
}
