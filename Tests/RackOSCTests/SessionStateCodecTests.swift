import Foundation
import XCTest
import RackEngine
import RackOSC
import RackTestSupport

/// A session file is read through the state codec (`RackState.decode`), as a preset is.
final class SessionStateCodecTests: XCTestCase {
    func testASessionFileMissingAFieldLoadsWithThatFieldsDefault() throws {
        let dir = try makeTemporaryDirectory("rack-session-codec")
        var moved = RackState()
        moved[.cutoff] = 500
        moved[.gain] = -12
        moved[.bypass] = 1
        for spec in Parameters.all where !ReverbControls.followingRoom.contains(spec.id) {
            let path = dir + "/\(spec.name).json"
            let fields = moved.encodedFields.filter { $0.name != spec.name }
            try ("{" + fields.map { "\"\($0.name)\": \($0.json)" }.joined(separator: ", ") + "}")
                .write(toFile: path, atomically: true, encoding: .utf8)
            let loaded = try SessionState.load(path: path).state
            XCTAssertEqual(loaded[spec.id], spec.defaultValue, "\(spec.name) left out takes its default")
        }
    }
}
