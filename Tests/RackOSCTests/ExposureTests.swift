import Foundation
import XCTest
import RackEngine
@testable import RackOSC
import RackWire

/// What a sender other than 127.0.0.1 may have: bounded replies, subscriptions as leases that
/// one address cannot fill the tables with, files from `--media-dir` only with one answer.
final class ExposureTests: XCTestCase {
    let remote = OSCEndpoint(host: "192.0.2.7", port: 9000)!

    func testABundleOfDumpsIsAnsweredWithinTheReplyBudget() {
        let rig = Rig()
        let dump = OSCMessage("/rack/dump")
        let bundle = OSCPacket.bundle(Array(repeating: dump, count: 3000), timeTag: .immediately)
        rig.send(bundle, from: remote)
        let replies = rig.outbox.take(for: remote)
        XCTAssertEqual(replies.count, ReplyBudget.repliesPerDatagram, "64 replies, not 18,000")
        XCTAssertLessThan(replies.map { $0.encoded().count }.reduce(0, +), bundle.count / 10)
        rig.send(bundle, from: rig.client)
        XCTAssertEqual(rig.replies().count, 3000 * (Parameters.all.count + 1), "127.0.0.1 is not limited")
    }

    func testSmallRequestsAreAnsweredUntilTheAllowanceIsSpent() {
        let rig = Rig()
        rig.send("/rack/params", from: remote)
        XCTAssertEqual(rig.outbox.take(for: remote).count, Parameters.all.count, "one request is always answered whole")
        var bytes = 0
        for _ in 0..<200 {
            rig.send("/rack/params", from: remote)
            bytes += rig.outbox.take(for: remote).map { $0.encoded().count }.reduce(0, +)
        }
        let sent = 201 * OSCMessage("/rack/params").encoded().count
        XCTAssertLessThanOrEqual(bytes, ReplyBudget.bytesPerByteReceived * sent + Int(ReplyBudget.allowanceBytesPerSecond))
        rig.now += 1
        rig.send("/rack/params", from: remote)
        XCTAssertEqual(rig.outbox.take(for: remote).count, Parameters.all.count, "the allowance refills within a second")
    }

    func testRemoteSubscriptionsAreLeases() {
        let rig = Rig()
        rig.send("/rack/subscribe", from: remote)
        rig.send("/rack/subscribe")   // 127.0.0.1: no lease
        rig.now += ExposurePolicy.defaultLeaseSeconds - 1
        rig.controller.tick(now: rig.now)
        rig.send("/rack/mix", [.float(10)])
        rig.settle()
        XCTAssertEqual(rig.outbox.take(for: remote), [OSCMessage("/rack/mix", [.float(10)])])
        rig.send("/rack/subscribe", from: remote)   // renewed here
        rig.now += ExposurePolicy.defaultLeaseSeconds - 1
        rig.controller.tick(now: rig.now)
        rig.send("/rack/mix", [.float(11)])
        rig.settle()
        XCTAssertEqual(rig.outbox.take(for: remote).count, 1, "the renewal moved the lease on")
        rig.now += 2
        rig.controller.tick(now: rig.now)
        rig.send("/rack/mix", [.float(12)])
        rig.settle()
        XCTAssertEqual(rig.outbox.take(for: remote), [], "lapsed")
        XCTAssertTrue(rig.replies().contains(OSCMessage("/rack/mix", [.float(12)])), "the local one stays")
    }

    func testOneRemoteAddressHoldsAtMostFourPlaces() {
        let rig = Rig()
        for port in 1...ControllerTuning.maximumSubscriptionsPerAddress { rig.send("/rack/subscribe", [.int(Int32(port))], from: remote) }
        rig.send("/rack/meter", [.int(99)], from: remote)
        XCTAssertEqual(rig.outbox.take(for: remote), [rig.error("/rack/meter", "too many subscriptions from this address")])
        let other = OSCEndpoint(host: "192.0.2.8", port: 9000)!
        rig.send("/rack/meter", from: other)
        XCTAssertEqual(rig.outbox.take(for: other), [], "another address still can")
    }

    func testRemoteLoadsOnlyFromTheMediaDirectoryWithOneAnswer() throws {
        let tone = try Rig().writeTone(seconds: 0.2)
        let media = (tone as NSString).deletingLastPathComponent
        let rig = Rig(policy: ExposurePolicy(mediaDirectories: [media]))
        rig.send("/rack/player/load", [.string(tone)], from: remote)
        XCTAssertEqual(rig.outbox.take(for: remote), [], "a file in the media directory loads")
        for path in ["/etc/passwd", media + "/missing.wav", media + "/../" + (media as NSString).lastPathComponent + "/../x.wav", "/dev/zero", ""] {
            rig.send("/rack/player/load", [.string(path)], from: remote)
            XCTAssertEqual(rig.outbox.take(for: remote), [rig.error("/rack/player/load", ExposurePolicy.refusedLoad)], path)
        }
        rig.send("/rack/player/load", [.string(media + "/missing.wav")])
        XCTAssertNotEqual(rig.replies(), [rig.error("/rack/player/load", ExposurePolicy.refusedLoad)], "127.0.0.1 learns why")
    }

    func testTheMediaListShowsWhatARemoteSenderMayLoadAndNothingElse() throws {
        let rig0 = Rig()
        let media = rig0.temporaryDirectory()
        let outside = rig0.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: media + "/sub", withIntermediateDirectories: true)
        for file in ["b.wav", "sub/a.flac", "notes.txt", ".hidden.wav"] {
            _ = FileManager.default.createFile(atPath: media + "/" + file, contents: Data([0]))
        }
        _ = FileManager.default.createFile(atPath: outside + "/secret.wav", contents: Data([0]))
        try FileManager.default.createSymbolicLink(atPath: media + "/link.wav", withDestinationPath: outside + "/secret.wav")
        let rig = Rig(policy: ExposurePolicy(mediaDirectories: [media]))
        rig.send("/rack/player/media", from: remote)
        let real = try XCTUnwrap(ExposurePolicy.realPath(media))
        XCTAssertEqual(rig.outbox.take(for: remote), [OSCMessage("/rack/player/media", [.string(real + "/b.wav"), .string(real + "/sub/a.flac")])],
                       "audio files inside, by real path; no text file, no hidden file, no link leading outside")
        let none = Rig()
        none.send("/rack/player/media")
        XCTAssertEqual(none.replies(), [OSCMessage("/rack/player/media", [])], "no --media-dir: an empty list")
    }
}
