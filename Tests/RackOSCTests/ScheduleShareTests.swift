import XCTest
import RackEngine
@testable import RackOSC
import RackWire

/// The scheduler's slots are shared per sender address, with a reserve for 127.0.0.1 and
/// `--allow`ed peers (`ControllerTuning.scheduleShare`, the rule of subscriber places), and
/// `/rack/schedule/clear` drops what its sender scheduled, and nothing else.
final class ScheduleShareTests: XCTestCase {
    func remote(_ n: Int, port: UInt16 = 9000) -> OSCEndpoint { OSCEndpoint(host: "192.0.2.\(n)", port: port)! }

    /// `count` `/rack/mix` changes to `value`, timetagged `seconds` ahead, one datagram each
    /// (a bundle is checked message by message, so one datagram would do as well).
    func schedule(_ rig: Rig, _ count: Int, value: Float = 50, seconds: Double = 60, from: OSCEndpoint? = nil) {
        rig.send(OSCPacket.bundle(Array(repeating: OSCMessage("/rack/mix", [.float(value)]), count: count),
                                  timeTag: rig.timeTag(in: seconds)), from: from)
    }

    func testARemoteSenderThatFillsItsShareIsRefusedAndCannotStarveALocalOne() {
        let rig = Rig()
        let share = ControllerTuning.scheduleShare(capacity: rig.engine.scheduledCapacity)
        XCTAssertEqual([share.capacity, share.trustedReserve, share.perRemoteAddress], [4096, 1024, 1024], "the README's figures")
        let flooders = share.remoteShare / share.perRemoteAddress + 1
        for n in 1...flooders {
            schedule(rig, share.capacity, from: remote(n))
        }
        XCTAssertEqual(rig.controller.scheduledInFlight, share.remoteShare, "remote addresses together: all but the reserve")
        let first = rig.outbox.take(for: remote(1)).first
        XCTAssertEqual(first, rig.error("/rack/mix", "busy: this address may have at most 1024 timetagged changes waiting (its share of 4096)"))
        XCTAssertEqual(rig.outbox.take(for: remote(flooders)).first,
                       rig.error("/rack/mix", "busy: remote addresses may have at most 3072 timetagged changes waiting together (of 4096)"))
        schedule(rig, share.trustedReserve)
        XCTAssertEqual(rig.replies(), [], "the local user schedules its reserve")
        XCTAssertEqual(rig.controller.scheduledInFlight, share.capacity)
        XCTAssertEqual(rig.engine.scheduledWaiting, share.capacity)
    }

    func testAnAllowedPeerSharesTheReserve() {
        let rig = Rig(allow: [AddressRange("192.0.2.1")!, AddressRange("127.0.0.1")!])
        schedule(rig, rig.engine.scheduledCapacity, from: remote(1))
        XCTAssertEqual(rig.outbox.take(for: remote(1)), [], "trusted: the whole capacity")
        XCTAssertEqual(rig.controller.scheduledInFlight, rig.engine.scheduledCapacity)
    }

    func testClearDropsTheSendersOwnEventsOnlyAndSaysHowMany() {
        let rig = Rig()
        let other = OSCEndpoint(host: "127.0.0.1", port: 9001)!
        schedule(rig, 10, value: 10, seconds: 0.5)
        schedule(rig, 5, value: 20, seconds: 0.5, from: other)
        schedule(rig, 3, value: 30, seconds: 0.6, from: remote(1))
        rig.send(OSCReplyAddress.scheduleCleared.replacingOccurrences(of: "cleared", with: "clear"))
        rig.settle()
        XCTAssertEqual(rig.replies(), [OSCMessage(OSCReplyAddress.scheduleCleared, [.int(10)])])
        XCTAssertEqual(rig.controller.scheduledInFlight, 8)
        XCTAssertEqual(rig.engine.scheduledWaiting, 8)
        rig.settle(blocks: 100)   // 0.53 s: the other local sender's changes apply
        XCTAssertEqual(rig.controller.targets[.mix], 20)
        rig.settle(blocks: 20)    // 0.64 s: and the remote one's
        XCTAssertEqual(rig.controller.targets[.mix], 30)
        XCTAssertEqual(rig.controller.scheduledInFlight, 0)
        XCTAssertEqual(rig.outbox.take(for: other), [], "the others were told nothing")
    }

    /// A cleared recall is forgotten with its changes (its marker never comes back), and a recall
    /// scheduled after the clear is told when it takes effect.
    func testAClearedRecallIsForgottenAndALaterOneStillTold() {
        let rig = Rig()
        let watcher = OSCEndpoint(host: "127.0.0.1", port: 9100)!
        rig.send("/rack/subscribe", from: watcher)
        for _ in 0..<3 {
            rig.send(OSCPacket.bundle([OSCMessage("/rack/preset", [.string("Warm")])], timeTag: rig.timeTag(in: 0.2)),
                     from: remote(1))
        }
        XCTAssertEqual(rig.controller.recallsInFlight, 3)
        rig.send("/rack/schedule/clear", from: remote(1))
        rig.send(OSCPacket.bundle([OSCMessage("/rack/preset", [.string("Bright")])], timeTag: rig.timeTag(in: 0.2)),
                 from: remote(1))
        rig.settle()
        // Three recalls, each a marker and one change per parameter.
        let cleared = 3 * (Parameters.all.count + 1)
        XCTAssertEqual(rig.outbox.take(for: remote(1)), [OSCMessage(OSCReplyAddress.scheduleCleared, [.int(Int32(cleared))])])
        XCTAssertEqual(rig.controller.recallsInFlight, 1, "the three cleared recalls are forgotten, the later one waits")
        rig.outbox.clear()
        rig.settle(blocks: 40)
        XCTAssertEqual(rig.controller.recallsInFlight, 0)
        XCTAssertEqual(rig.outbox.take(for: watcher).filter { $0.address == "/rack/preset" }, [OSCMessage("/rack/preset", [.string("Bright")])])
    }

    func testClearWithNothingWaitingAnswersZeroAtOnce() {
        let rig = Rig()
        rig.controller.handle(OSCMessage("/rack/schedule/clear"), timeTag: .immediately, from: rig.client)
        XCTAssertEqual(rig.replies(), [OSCMessage(OSCReplyAddress.scheduleCleared, [.int(0)])])
    }

    /// A remote sender that filled its share and cleared it schedules again.
    func testAClearFreesTheSendersShare() {
        let rig = Rig()
        let perAddress = ControllerTuning.scheduleShare(capacity: rig.engine.scheduledCapacity).perRemoteAddress
        schedule(rig, perAddress + 1, from: remote(1))
        XCTAssertEqual(rig.outbox.take(for: remote(1)).count, 1, "one over its share")
        rig.send("/rack/schedule/clear", from: remote(1))
        rig.settle()
        XCTAssertEqual(rig.outbox.take(for: remote(1)), [OSCMessage(OSCReplyAddress.scheduleCleared, [.int(Int32(perAddress))])])
        XCTAssertEqual(rig.controller.scheduledInFlight, 0)
        schedule(rig, perAddress, from: remote(1))
        XCTAssertEqual(rig.outbox.take(for: remote(1)), [], "its share is free again")
    }
}
