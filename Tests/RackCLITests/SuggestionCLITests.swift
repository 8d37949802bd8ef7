import Foundation
import XCTest
import RackTestSupport

/// A parameter or address name a letter or two off gets "(did you mean …?)" on the command line
/// as over OSC: `--set` and `rack check`.
final class SuggestionCLITests: XCTestCase {
    func testSetAndCheckSuggestTheNearestName() throws {
        let dir = try makeTemporaryDirectory("rack-suggest")
        let env = ["XDG_CONFIG_HOME": dir + "/config"]
        try writeTone(dir + "/in.wav", seconds: 0.2)
        let set = try rack(["render", dir + "/in.wav", dir + "/o.wav", "--set", "cutof=500"], environment: env)
        XCTAssertEqual(set.status, 65, set.stderr)
        XCTAssertTrue(set.stderr.hasSuffix(" (did you mean cutoff?)\n"), set.stderr)
        let far = try rack(["render", dir + "/in.wav", dir + "/o.wav", "--set", "volume=1"], environment: env)
        XCTAssertEqual(far.status, 65, far.stderr)
        XCTAssertFalse(far.stderr.contains("did you mean"), far.stderr)

        let file = dir + "/typo.txt"
        try "0 /rack/cutof 500\n1 /rack/player/plya\n".write(toFile: file, atomically: true, encoding: .utf8)
        let check = try rack(["check", file], environment: env)
        XCTAssertEqual(check.status, 65, check.stderr)
        XCTAssertTrue(check.stderr.contains("typo.txt:1: error: unknown or non-automatable address '/rack/cutof' (did you mean /rack/cutoff?)"), check.stderr)
        XCTAssertTrue(check.stderr.contains("(did you mean /rack/player/play?)"), check.stderr)
    }
}
