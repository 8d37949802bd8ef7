import XCTest
import RackTestSupport
import Foundation
@testable import RackIO

/// An RF64 whose ds64 chunk claims 2^64−1 bytes of audio: libsndfile refuses it with
/// "unspecified internal error"; rack says what is wrong, in one line naming the file.
final class RF64HeaderTests: XCTestCase {
    func testADS64ThatClaimsTooMuchIsNamedInOneLine() throws {
        let path = try makeTemporaryDirectory("rack-rf64") + "/huge.wav"
        try writeRF64(path, frames: 100, dataBytes: UInt64.max)
        XCTAssertThrowsError(try AudioFileReader(path: path)) { error in
            let e = error as? AudioFileError
            XCTAssertEqual(e?.status, .dataError)
            XCTAssertEqual(e?.description, "cannot read '\(path)': truncated: the header promises 18446744073709551615 bytes of audio but the file holds 400")
        }
    }

    func testAnRF64ThatHoldsWhatItClaimsIsRead() throws {
        let path = try makeTemporaryDirectory("rack-rf64") + "/ok.wav"
        try writeRF64(path, frames: 100, dataBytes: 400)
        XCTAssertEqual(try AudioFileReader(path: path).info.frames, 100)
    }
}
