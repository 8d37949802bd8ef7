import Foundation
import XCTest
import RackTestSupport

/// What the command line shows a person holds numbers rounded to each parameter's precision:
/// `rack --help`, `rack run --help`, `rack presets list` and `rack presets show`.
final class ReadableNumbersCLITests: XCTestCase {
    func testHelpAndPresetListingsShowRoundedNumbers() throws {
        let dir = try makeTemporaryDirectory("rack-readable")
        let env = ["XDG_CONFIG_HOME": dir + "/config"]
        for args in [["--help"], ["run", "--help"]] {
            let help = try rack(args, environment: env)
            XCTAssertEqual(help.status, 0, help.stderr)
            if help.stdout.contains("damping") {
                XCTAssertTrue(help.stdout.contains("default 3529"), help.stdout)
            }
            XCTAssertNil(help.stdout.range(of: #"[0-9]\.[0-9]{5,}"#, options: .regularExpression), help.stdout)
        }
        // A preset an older version wrote with full precision lists and shows rounded.
        try FileManager.default.createDirectory(atPath: dir + "/config/rack/presets", withIntermediateDirectories: true)
        try "{\"name\": \"Old\", \"cutoff\": 500, \"resonance\": 1, \"mix\": 20, \"gain\": -1, \"room\": \"plate\", \"damping\": 2941.1764705882356}"
            .write(toFile: dir + "/config/rack/presets/Old.json", atomically: true, encoding: .utf8)
        let list = try rack(["presets", "list"], environment: env)
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains("damping=2941 "), list.stdout)
        let show = try rack(["presets", "show", "Old"], environment: env)
        XCTAssertTrue(show.stdout.contains("\"damping\": 2941,"), show.stdout)
    }
}
