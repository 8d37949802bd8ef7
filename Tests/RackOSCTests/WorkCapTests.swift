import Foundation
import XCTest
@testable import RackOSC
import RackWire

/// Costly work of the control thread per datagram and per second: media listings (each may
/// walk the `--media-dir` tree) and session saves; the listing kept while the tree is unchanged.
final class WorkCapTests: XCTestCase {
    let remote = OSCEndpoint(host: "192.0.2.7", port: 9000)!

    /// A media directory with `files` audio files, one in a subdirectory, every directory's
    /// modification time a minute back (settled: the listing may be kept).
    private func mediaDirectory(_ rig: Rig, files: Int) throws -> String {
        let media = rig.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: media + "/sub", withIntermediateDirectories: true)
        for i in 0..<files { _ = FileManager.default.createFile(atPath: media + "/f\(i).wav", contents: Data([0])) }
        _ = FileManager.default.createFile(atPath: media + "/sub/a.wav", contents: Data([0]))
        try settle(media, media + "/sub")
        return media
    }

    private func settle(_ directories: String...) throws {
        for d in directories {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: d)
        }
    }

    func testADatagramOfListingsWalksOnceAndTheRestAreBusy() throws {
        let rig0 = Rig()
        let media = try mediaDirectory(rig0, files: 3)
        let rig = Rig(policy: ExposurePolicy(mediaDirectories: [media]))
        let asked = 200
        rig.send(OSCPacket.bundle(Array(repeating: OSCMessage("/rack/player/media"), count: asked), timeTag: .immediately), from: remote)
        let replies = rig.outbox.take(for: remote)
        XCTAssertEqual(rig.controller.media.walks, 1, "one walk for the datagram, not \(asked)")
        XCTAssertEqual(replies.first?.address, "/rack/player/media")
        XCTAssertEqual(replies.first?.arguments.count, 4)
        XCTAssertEqual(Array(replies.dropFirst()), Array(repeating: rig.error("/rack/player/media", Reason.mediaListings.text),
                                                         count: min(ReplyBudget.repliesPerDatagram - 1, ControllerTuning.errorRepliesPerRemoteAddress)),
                       "as many refusals as a datagram's replies and one remote address's errors allow")
    }

    func testTheListingIsKeptUntilADirectoryChanges() throws {
        let rig0 = Rig()
        let media = try mediaDirectory(rig0, files: 2)
        let rig = Rig(policy: ExposurePolicy(mediaDirectories: [media]))
        func listing() -> [OSCValue] {
            rig.now += 1
            rig.send("/rack/player/media")
            return rig.replies().first?.arguments ?? []
        }
        XCTAssertEqual(listing().count, 3)
        XCTAssertEqual(listing().count, 3)
        XCTAssertEqual(rig.controller.media.walks, 1, "kept: the directories did not change")
        _ = FileManager.default.createFile(atPath: media + "/sub/b.flac", contents: Data([0]))
        XCTAssertEqual(listing().count, 4, "a file added in a subdirectory is listed")
        XCTAssertEqual(rig.controller.media.walks, 2)
        XCTAssertEqual(listing().count, 4)
        XCTAssertEqual(rig.controller.media.walks, 3, "a change too recent to tell by its time: walked again")
        try settle(media + "/sub")
        _ = listing()
        XCTAssertEqual(listing().count, 4)
        XCTAssertEqual(rig.controller.media.walks, 4, "settled: kept again")
    }

    func testListingsPerSecondAreCapped() throws {
        let rig = Rig()
        for _ in 0..<ControllerTuning.mediaListingsPerSecond {
            rig.send("/rack/player/media")
            XCTAssertEqual(rig.replies(), [OSCMessage("/rack/player/media", [])])
        }
        rig.send("/rack/player/media")
        XCTAssertEqual(rig.replies(), [rig.error("/rack/player/media", Reason.mediaListings.text)])
        rig.now += 1
        rig.send("/rack/player/media")
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/player/media", [])], "the next second")
    }

    func testADatagramOfSessionSavesWritesOnce() throws {
        let rig = Rig()
        let nsm = NSMClient(url: "osc.udp://127.0.0.1:7777/")!
        nsm.sessionPath = rig.temporaryDirectory() + "/session"
        rig.controller.nsm = nsm
        let asked = 2000
        rig.send(OSCPacket.bundle(Array(repeating: OSCMessage("/nsm/client/save"), count: asked), timeTag: .immediately), from: nsm.server)
        let answers = rig.outbox.take(for: nsm.server)
        let saved = answers.filter { $0 == OSCMessage("/reply", [.string("/nsm/client/save"), .string("saved")]) }
        let busy = OSCMessage("/error", [.string("/nsm/client/save"), .int(NSMClient.generalError), .string(Reason.sessionSaves.text)])
        XCTAssertEqual(saved.count, ControllerTuning.sessionSavesPerPacket, "one write, not \(asked)")
        XCTAssertEqual(answers.filter { $0 == busy }.count, asked - ControllerTuning.sessionSavesPerPacket, "every other save answered: busy")
        for _ in 1..<ControllerTuning.sessionSavesPerSecond { rig.send("/nsm/client/save", from: nsm.server) }
        XCTAssertEqual(rig.outbox.take(for: nsm.server).filter { $0 == busy }.count, 0)
        rig.send("/nsm/client/save", from: nsm.server)
        XCTAssertEqual(rig.outbox.take(for: nsm.server), [busy], "a second's saves at most")
    }
}
