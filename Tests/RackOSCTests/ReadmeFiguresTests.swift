import Foundation
import XCTest
import RackEngine
import RackFiles
@testable import RackOSC
import RackTestSupport
import RackWire

/// The figures the README's OSC, exposure, MIDI and preset sections give for the control side,
/// read from the README and compared with the constants the behaviour tests exercise
/// (`AddressSpaceTests`, `ExposureTests`, `FeedbackTests`, `SchedulingTests`, `MIDICommandsTests`,
/// `PresetCommandTests`, `PresetTests`, `PresetNumberTests`), so a README figure and the code
/// cannot drift apart; and, where no other test does, the behaviour at the README's figure.
final class ReadmeFiguresTests: XCTestCase {
    static let readme: String = (try? Documentation.text()) ?? ""

    /// The number (digits, thousands commas allowed) that `pattern`'s first group captures.
    func figure(_ pattern: String, file: StaticString = #filePath, line: UInt = #line) throws -> Double {
        let regex = try NSRegularExpression(pattern: pattern)
        let text = Self.readme
        let match = try XCTUnwrap(regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                                  "the README no longer says \(pattern)", file: file, line: line)
        let captured = try XCTUnwrap(Range(match.range(at: 1), in: text), file: file, line: line)
        return try XCTUnwrap(Double(text[captured].replacingOccurrences(of: ",", with: "")), file: file, line: line)
    }

    func testTheControlSidesFiguresAreTheCodes() throws {
        XCTAssertEqual(try figure(#"`/rack/error s:address s:reason`, at most (\d+) a second"#), Double(ControllerTuning.errorRepliesPerSecond))
        XCTAssertEqual(try figure(#"under `--media-dir`, real paths, at most (\d+),"#), Double(ExposurePolicy.maximumListedMediaFiles))
        XCTAssertEqual(try figure(#"the walk looks at ([\d,]+) entries at most"#), Double(ExposurePolicy.maximumWalkedMediaEntries))
        XCTAssertEqual(try figure(#"media listings (\d+) and"#), Double(ControllerTuning.mediaListingsPerPacket))
        XCTAssertEqual(try figure(#"media listings \d+ and (\d+)"#), Double(ControllerTuning.mediaListingsPerSecond))
        XCTAssertEqual(try figure(#"one listing per datagram and (\d+) a second"#), Double(ControllerTuning.mediaListingsPerSecond))
        XCTAssertEqual(try figure(#"preset writes (\d+) per datagram"#), Double(ControllerTuning.presetWritesPerPacket))
        XCTAssertEqual(try figure(#"session saves (\d+) and"#), Double(ControllerTuning.sessionSavesPerPacket))
        XCTAssertEqual(try figure(#"session saves \d+ and (\d+)"#), Double(ControllerTuning.sessionSavesPerSecond))
        XCTAssertEqual(try figure(#"\| `/rack/meter` \| optional `i` port \| (\d+) times a second"#), ControllerTuning.meterHz)
        XCTAssertEqual(try figure(#"At most \*\*([\d,]+) timetagged changes\*\*"#), Double(Rig().engine.scheduledCapacity))
        XCTAssertEqual(try figure(#"Timetags more than \*\*(\d+) hour\*\* ahead"#) * 3600, ControllerTuning.scheduleHorizonSeconds)
        XCTAssertEqual(try figure(#"a remote source earns (\d+) reply bytes per byte"#), Double(ReplyBudget.bytesPerByteReceived))
        XCTAssertEqual(try figure(#"reply bytes per byte it sends, plus (\d+) KiB a second"#) * 1024, ReplyBudget.allowanceBytesPerSecond)
        XCTAssertEqual(try figure(#"one datagram gets at most (\d+) reply messages"#), Double(ReplyBudget.repliesPerDatagram))
        XCTAssertEqual(try figure(#"`/rack/subscribe` from a remote address is a lease of \*\*(\d+) s\*\*"#), ExposurePolicy.defaultLeaseSeconds)
        XCTAssertEqual(try figure(#"and `/rack/meter` one of \*\*(\d+) s\*\*"#), ExposurePolicy.defaultMeterLeaseSeconds)
        let schedule = ControllerTuning.scheduleShare(capacity: Rig().engine.scheduledCapacity)
        XCTAssertEqual(try figure(#"a quarter of them \(\*\*([\d,]+)\*\*\) is kept"#), Double(schedule.trustedReserve))
        XCTAssertEqual(try figure(#"one remote address holds at most \*\*([\d,]+)\*\* \(what `rack send`"#), Double(schedule.perRemoteAddress))
        XCTAssertEqual(try figure(#"remote addresses together at most \*\*([\d,]+)\*\*\. Beyond"#), Double(schedule.remoteShare))
        XCTAssertEqual(try figure(#"one remote address holds at most \*\*(\d+)\*\* places"#), Double(ControllerTuning.maximumSubscriptionsPerAddress))
        XCTAssertEqual(try figure(#"places \(both tables together, (\d+) each\)"#), Double(ControllerTuning.maximumSubscribers))
        XCTAssertEqual(try figure(#"all but \*\*(\d+)\*\* places of each table"#), Double(ControllerTuning.subscriberTrustedReserve))
        XCTAssertEqual(try figure(#"one remote address \(see Exposure rules\) gets at most (\d+) of them"#),
                       Double(ControllerTuning.errorRepliesPerRemoteAddress))
        XCTAssertEqual(try figure(#"remote addresses together at most (\d+), so"#),
                       Double(ControllerTuning.errorRepliesPerSecond - ControllerTuning.errorRepliesTrustedReserve))
        XCTAssertEqual(try figure(#"so (\d+) a second are kept for 127\.0\.0\.1"#), Double(ControllerTuning.errorRepliesTrustedReserve))
        XCTAssertEqual(try figure(#"writes one stderr line, at most (\d+) a second"#), Double(ControllerTuning.midiLinesPerSecond))
        XCTAssertEqual(try figure(#"fdatasync'ed at most every (\d+) s and at exit"#), ControllerTuning.recordFlushSeconds)
        XCTAssertEqual(try figure(#"when that reply is at most (\d+) KiB"#) * 1024, Double(PresetListPages.wholeReplyBytes))
        XCTAssertEqual(try figure(#"\(each at most (\d+) KiB, together the list\)"#) * 1024, Double(PresetListPages.pageBytes))
        XCTAssertEqual(try figure(#"A preset file larger\s+than (\d+) KiB"#) * 1024, Double(Preset.maximumFileBytes))
        XCTAssertEqual(try figure(#"a\s+bad value is quoted to at most (\d+) characters"#), Double(Preset.excerptCharacters))
        XCTAssertEqual(try figure(#"At most ([\d,]+) user presets\s+are kept"#), Double(PresetStore.defaultMaximumUserPresets))
        XCTAssertEqual(try figure(#"at most (\d+) bytes of UTF-8; a name is stored"#), Double(PresetStore.maximumNameBytes))
        XCTAssertEqual(try figure(#"lists the presets \(the first (\d+), then how many more\)"#), Double(PresetStore.namesInUnknownReason))
    }

    /// The README: a timetagged preset recall takes its count of the scheduled changes, whole.
    func testATimetaggedRecallCountsWhatTheReadmeSays() throws {
        let rig = Rig()
        rig.send(OSCPacket.bundle([OSCMessage("/rack/preset", [.string("Warm")])], timeTag: rig.timeTag(in: 10)))
        XCTAssertEqual(rig.replies(), [])
        XCTAssertEqual(Double(rig.controller.scheduledInFlight), try figure(#"a preset recall counts (\d+):"#))
        XCTAssertEqual(rig.controller.scheduledInFlight, Parameters.all.count + 1, "a marker and every parameter")
    }

    /// One file beyond the README's count of media files: the list holds the count, sorted.
    func testTheMediaListHoldsAtMostTheReadmesCount() throws {
        let count = Int(try figure(#"under `--media-dir`, real paths, at most (\d+),"#))
        let media = try makeTemporaryDirectory("rack-media-count")
        for i in 0...count { XCTAssertTrue(FileManager.default.createFile(atPath: media + String(format: "/%04d.wav", i), contents: Data([0]))) }
        let rig = Rig(policy: ExposurePolicy(mediaDirectories: [media]))
        rig.send("/rack/player/media")
        let listed = try XCTUnwrap(rig.replies().first).arguments.compactMap(\.string)
        XCTAssertEqual(listed.count, count)
        XCTAssertEqual(listed, listed.sorted())
    }

    /// A name of the README's bytes of UTF-8 is taken, one four-byte letter more is not (fewer
    /// than 64 characters either way: the byte bound, not the character bound, refuses it).
    func testAPresetNameHasAtMostTheReadmesBytes() throws {
        let bytes = Int(try figure(#"at most (\d+) bytes of UTF-8; a name is stored"#))
        let letter = "\u{20000}"   // a CJK ideograph (a letter), 4 bytes of UTF-8
        XCTAssertEqual(letter.utf8.count, 4)
        let atTheBound = String(repeating: letter, count: bytes / 4)
        XCTAssertEqual(atTheBound.utf8.count, bytes)
        XCTAssertNil(PresetStore.problem(withName: atTheBound))
        let beyond = atTheBound + letter
        XCTAssertLessThan(beyond.count, 64)
        XCTAssertEqual(PresetStore.problem(withName: beyond), "a preset name has at most \(bytes) bytes of UTF-8")
    }
}
