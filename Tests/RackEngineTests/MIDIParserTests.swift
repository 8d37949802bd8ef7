import XCTest
import RackTestSupport
@testable import RackEngine

/// The MIDI byte parser against the MIDI 1.0 specification's byte-stream rules.
final class MIDIParserTests: XCTestCase {
    private func parse(_ bytes: [UInt8]) -> [MIDIMessage] {
        var p = MIDIParser()
        return bytes.compactMap { p.feed($0) }
    }

    func testControlAndProgramChange() {
        XCTAssertEqual(parse([0xB3, 74, 100, 0xC0, 5]),
                       [.controlChange(channel: 3, controller: 74, value: 100), .programChange(channel: 0, program: 5)])
    }

    func testRunningStatusRepeatsTheLastChannelStatus() {
        XCTAssertEqual(parse([0xB0, 7, 1, 7, 2, 91, 3]),
                       [.controlChange(channel: 0, controller: 7, value: 1), .controlChange(channel: 0, controller: 7, value: 2),
                        .controlChange(channel: 0, controller: 91, value: 3)])
        XCTAssertEqual(parse([0xC2, 1, 2, 3]), [.programChange(channel: 2, program: 1), .programChange(channel: 2, program: 2),
                                                 .programChange(channel: 2, program: 3)])
    }

    func testRealtimeBytesInsideAMessageAreTransparent() {
        XCTAssertEqual(parse([0xB0, 0xF8, 74, 0xFE, 0xFA, 64, 0xFF]), [.controlChange(channel: 0, controller: 74, value: 64)])
    }

    func testSysExOfAnyLengthIsSkippedAndCancelsRunningStatus() {
        let sysex = [0xF0] + [UInt8](repeating: 0x10, count: 100_000) + [0xF7]
        XCTAssertEqual(parse([0xB0, 7, 1] + sysex + [7, 2]), [.controlChange(channel: 0, controller: 7, value: 1)])
        // A SysEx without F7, ended by the next status byte.
        XCTAssertEqual(parse([0xF0, 1, 2, 3, 0xB1, 71, 9]), [.controlChange(channel: 1, controller: 71, value: 9)])
    }

    func testTruncatedMessagesAreDropped() {
        XCTAssertEqual(parse([0xB0, 74, 0xB0, 7, 5]), [.controlChange(channel: 0, controller: 7, value: 5)])
        XCTAssertEqual(parse([0xB0]), [])
        XCTAssertEqual(parse([74, 5, 0xC0]), [], "data bytes with no status")
    }

    func testOtherMessagesAreParsedButIgnored() {
        // Note on/off, pitch bend, channel pressure (1 data byte), song position (system common).
        XCTAssertEqual(parse([0x90, 60, 100, 0x80, 60, 0, 0xE0, 0, 64, 0xD0, 5, 0xF2, 1, 2, 0xB0, 1, 2]),
                       [.controlChange(channel: 0, controller: 1, value: 2)])
    }

    func testRandomBytesNeverTrapAndKeepInSync() {
        var rng = SplitMix(seed: 0x4D49_4449)   // seeded: a failure reproduces
        var p = MIDIParser()
        var parsed = 0
        for _ in 0..<200_000 {
            if p.feed(UInt8.random(in: 0...255, using: &rng)) != nil { parsed += 1 }
        }
        XCTAssertGreaterThan(parsed, 0, "the garbage holds complete control changes, and they parse")
        // After any garbage, a complete message parses.
        XCTAssertEqual(p.feed(0xF7), nil)
        XCTAssertEqual([0xB5, 10, 20].compactMap { p.feed($0) }, [.controlChange(channel: 5, controller: 10, value: 20)])
    }

    func testAnEventBoundaryDropsAPartialMessageButKeepsRunningStatus() {
        var p = MIDIParser()
        XCTAssertNil(p.feed(0xB0)); XCTAssertNil(p.feed(74)); p.endEvent()
        XCTAssertNil(p.feed(5), "the CC cut short by its event does not complete with the next event's byte")
        p.endEvent()
        XCTAssertEqual([7, 9].compactMap { p.feed($0) }, [.controlChange(channel: 0, controller: 7, value: 9)])
    }
}
