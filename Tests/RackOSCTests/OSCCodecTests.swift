import Foundation
import XCTest
import RackPathText
@testable import RackOSC
import RackWire

final class OSCCodecTests: XCTestCase {
    func testRoundTripThroughLiblo() throws {
        let m = OSCMessage("/rack/preset", [.string("Big Hall"), .float(1.5), .int(-3)])
        let bytes = m.encoded()
        XCTAssertEqual(bytes.count % 4, 0)
        let back = try bytes.withUnsafeBytes { try OSCPacket.decode($0) }
        XCTAssertEqual(back.map(\.0), [m])
        XCTAssertTrue(back[0].1.isImmediate)
    }

    /// An OSC string is bytes; one that is not UTF-8 (a file name) decodes to the
    /// `PathText` of its bytes, not to U+FFFD, and encodes back to the very same bytes.
    func testStringsThatAreNotUTF8KeepTheirBytes() throws {
        var raw = Array("/rack/player/load\0\0\0,s\0\0".utf8)
        raw += [0x2F, 0xFF, 0xFE, 0x2D, 0x78, 0x00, 0x00, 0x00]   // "/\xff\xfe-x"
        let decoded = try raw.withUnsafeBytes { try OSCPacket.decode($0) }
        let path = try XCTUnwrap(decoded.first?.0.arguments.first?.string)
        XCTAssertEqual(PathText.bytes(path), [0x2F, 0xFF, 0xFE, 0x2D, 0x78])
        XCTAssertEqual(decoded.first?.0.encoded(), raw)
    }

    func testBundlesCarryTheirTimeTag() throws {
        let tag = OSCTimeTag.now().adding(seconds: 2)
        let b = OSCPacket.bundle([OSCMessage("/a", [.int(1)]), OSCMessage("/b", [])], timeTag: tag)
        let back = try b.withUnsafeBytes { try OSCPacket.decode($0) }
        XCTAssertEqual(back.map(\.0.address), ["/a", "/b"])
        XCTAssertEqual(back[0].1, tag)
        XCTAssertEqual(tag.seconds(since: .now()), 2, accuracy: 0.05)
    }

    func testTimetagZeroAndDistantPastTimetagsAreInThePast() {
        let now = OSCTimeTag.now()
        XCTAssertLessThan(OSCTimeTag(raw: 0).seconds(since: now), -3.9e9)            // 1900
        XCTAssertLessThan(OSCTimeTag(raw: 1 << 32).seconds(since: now), -3.9e9)      // 1900 + 1 s
        XCTAssertEqual(now.adding(seconds: -100).seconds(since: now), -100, accuracy: 1e-6)
        XCTAssertEqual(now.seconds(since: OSCTimeTag(raw: 0)), Double(now.raw) / 4_294_967_296.0, accuracy: 1e-6)
    }

    func testMalformedPacketsAreRefused() {
        let cases: [[UInt8]] = [[], [0x2f], Array("/abc".utf8), Array("#bundle\0".utf8) + [0, 0, 0, 0], Array("xyz\0".utf8),
                                Array("#bundle\0".utf8) + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 99, 0x2f, 0, 0, 0]]
        for c in cases {
            XCTAssertThrowsError(try c.withUnsafeBytes { try OSCPacket.decode($0) }, "\(c)")
        }
    }

    /// `wake()` from another thread ends a long `receive` wait at once (how the WebSocket's
    /// messages reach the control thread), and a datagram still arrives after it.
    func testWakeEndsTheWait() throws {
        let socket = try UDPSocket(host: "127.0.0.1", port: 0)
        var buffer = [UInt8](repeating: 0, count: 64)
        let waker = Thread { Thread.sleep(forTimeInterval: 0.05); socket.wake() }
        let start = Date()
        waker.start()
        let got = buffer.withUnsafeMutableBytes { socket.receive(into: $0, timeoutMilliseconds: 5000) }
        XCTAssertNil(got)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "woken, not timed out")
        let sender = try UDPSocket(host: "127.0.0.1", port: 0)
        sender.send(OSCMessage("/ping").encoded(), to: socket.local)
        let after = buffer.withUnsafeMutableBytes { socket.receive(into: $0, timeoutMilliseconds: 5000) }
        XCTAssertEqual(after?.1, sender.local)
    }
}
