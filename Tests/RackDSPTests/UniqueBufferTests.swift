import XCTest
import RackDSP

/// The one-owner buffer: its elements are initialised once and released exactly once, when the
/// owner goes or when a new buffer takes its place.
final class UniqueBufferTests: XCTestCase {
    /// Counts its own ends (a class element makes a missing or a double release visible).
    final class Token {
        nonisolated(unsafe) static var ended = 0
        let value: Int
        init(_ value: Int) { self.value = value }
        deinit { Token.ended += 1 }
    }

    struct Owner: ~Copyable {
        var tokens: UniqueBuffer<Token>
    }

    func testElementsAreReleasedOnceWhenTheOwnerGoesOrIsReplaced() {
        Token.ended = 0
        do {
            var owner = Owner(tokens: UniqueBuffer(count: 3) { Token($0) })
            XCTAssertEqual((0..<3).map { owner.tokens.base[$0].value }, [0, 1, 2])
            XCTAssertEqual(Token.ended, 0)
            owner.tokens = UniqueBuffer(repeating: Token(7), count: 2)
            XCTAssertEqual(Token.ended, 3, "the replaced buffer's three tokens end at the assignment")
            XCTAssertEqual(owner.tokens.count, 2)
        }
        XCTAssertEqual(Token.ended, 4, "the shared token of the second buffer ends with its owner, once")
    }

    func testStereoStartsAtZeroAndHandsOutItsChannels() {
        let stereo = UniqueStereo(frames: 5)
        let buffers = stereo.buffers
        XCTAssertEqual(buffers.frames, 5)
        XCTAssertEqual((0..<5).map { buffers.left[$0] + buffers.right[$0] }, [0, 0, 0, 0, 0])
        XCTAssertNotEqual(buffers.left, buffers.right)
    }
}
