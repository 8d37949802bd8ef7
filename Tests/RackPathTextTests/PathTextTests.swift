import XCTest
@testable import RackPathText

/// A file name's bytes survive the trip through a String exactly, UTF-8 or not,
/// and show readably in a message.
final class PathTextTests: XCTestCase {
    func testBytesRoundTripExactly() {
        let cases: [[UInt8]] = [
            Array("plain/é-x.wav".utf8),
            [0xFF, 0xFE] + Array("-x.wav".utf8),
            [0x61, 0xC3] ,                       // a sequence cut short
            [0xE2, 0x82, 0x41],                  // a bad continuation
            [0xC0, 0xAF],                        // overlong '/'
            [0xED, 0xA0, 0x80],                  // a UTF-16 surrogate written as UTF-8
            Array("\u{10FEFF}".utf8),            // our own escape character as real UTF-8
            Array("\u{10FE41}x".utf8) + [0xFF],
        ]
        for bytes in cases {
            let text = PathText.fromBytes(bytes)
            XCTAssertEqual(PathText.bytes(text), bytes, "\(bytes)")
            XCTAssertFalse(text.unicodeScalars.contains("\u{FFFD}"), "never repaired: \(bytes)")
            let viaC = PathText.withCPath(text) { PathText.fromCString($0) }
            XCTAssertEqual(viaC, text)
        }
        XCTAssertEqual(PathText.fromBytes(Array("Café.wav".utf8)), "Café.wav", "valid UTF-8 is itself")
    }

    func testDisplayEscapesTheBytesThatAreNotUTF8() {
        XCTAssertEqual(PathText.display(PathText.fromBytes([0xFF, 0xFE] + Array("-x.wav".utf8))), "\\xFF\\xFE-x.wav")
        XCTAssertEqual(PathText.display(PathText.fromBytes([0x0A])), "\n", "valid bytes are left as they are")
        XCTAssertEqual(PathText.display("dir/é.wav"), "dir/é.wav")
    }
}
