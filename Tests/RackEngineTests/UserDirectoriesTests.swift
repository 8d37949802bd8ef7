import XCTest
@testable import RackEngine
@testable import RackFiles

/// One place decides where the user's files go (presets, the MIDI map, the demo
/// loop), and none of them lands under the filesystem root when `HOME` is empty.
final class UserDirectoriesTests: XCTestCase {
    func testXDGFirstThenAnAbsoluteHomeElseNone() throws {
        XCTAssertEqual(UserDirectories.directory(.config, environment: ["HOME": "/home/u"]), "/home/u/.config/rack")
        XCTAssertEqual(UserDirectories.directory(.data, environment: ["HOME": "/home/u"]), "/home/u/.local/share/rack")
        XCTAssertEqual(UserDirectories.directory(.cache, environment: ["HOME": "/home/u"]), "/home/u/.cache/rack")
        XCTAssertEqual(UserDirectories.directory(.cache, environment: ["HOME": "", "XDG_CACHE_HOME": "/c"]), "/c/rack")
        XCTAssertEqual(UserDirectories.directory(.config, environment: ["HOME": "/h", "XDG_CONFIG_HOME": "rel"]), "/h/.config/rack")
        for kind in [UserDirectories.Kind.config, .data, .cache] {
            XCTAssertNil(UserDirectories.directory(kind, environment: ["HOME": ""]))
            XCTAssertNil(UserDirectories.directory(kind, environment: ["HOME": "relative"]))
        }
        XCTAssertThrowsError(try UserDirectories.require(.cache, for: "the demo loop", environment: ["HOME": ""])) { error in
            let e = error as! RackError
            XCTAssertEqual(e.status, .cannotCreate)
            XCTAssertEqual(e.message, "cannot write the demo loop: neither XDG_CACHE_HOME nor HOME names an absolute directory")
        }
        XCTAssertEqual(PresetStore.defaultUserDirectory(environment: ["HOME": "/h"]), "/h/.config/rack/presets")
    }
}
