import XCTest
import RackEngine
@testable import RackOSC
import RackWire

/// No sender starves another: error replies and subscriber places are shared out per address,
/// with a reserve for 127.0.0.1 and `--allow`ed peers that remote senders cannot take; pushes to
/// a remote subscriber spend its reply budget.
final class BudgetShareTests: XCTestCase {
    func remote(_ n: Int, port: UInt16 = 9000) -> OSCEndpoint { OSCEndpoint(host: "192.0.2.\(n)", port: port)! }

    func testRemoteSendersCannotTakeTheLocalUsersErrors() {
        let rig = Rig()
        let perAddress = ControllerTuning.errorRepliesPerRemoteAddress
        let remoteShare = ControllerTuning.errorRepliesPerSecond - ControllerTuning.errorRepliesTrustedReserve
        let flooders = remoteShare / perAddress + 2
        var got: [Int] = []
        for n in 1...flooders {
            for _ in 0..<100 { rig.send("/rack/nowhere", from: remote(n)) }
            got.append(rig.outbox.take(for: remote(n)).count)
        }
        XCTAssertEqual(got.max(), perAddress, "one remote address")
        XCTAssertEqual(got.reduce(0, +), remoteShare, "remote addresses together")
        for _ in 0..<20 { rig.controller.handle(OSCMessage("/rack/nowhere"), timeTag: .immediately, from: rig.client) }
        XCTAssertEqual(rig.replies().count, 20, "the local user's errors are answered")
        rig.now += 1
        rig.send("/rack/nowhere", from: remote(1))
        XCTAssertEqual(rig.outbox.take(for: remote(1)).count, 1, "a new second")
    }

    func testAnAllowedPeerSharesTheReserve() {
        let rig = Rig(allow: [AddressRange("192.0.2.1")!, AddressRange("192.0.2.2")!])
        for _ in 0..<300 { rig.send("/rack/nowhere", from: remote(1)) }
        XCTAssertEqual(rig.outbox.take(for: remote(1)).count, ControllerTuning.errorRepliesPerSecond, "trusted: the whole budget")
    }

    /// 16 remote addresses of 4 places each used to fill a table (64): they now fill all but
    /// the reserve, and the local user still subscribes.
    func testRemoteSubscribersCannotTakeTheReservedPlaces() {
        let perAddress = ControllerTuning.maximumSubscriptionsPerAddress
        let remotePlaces = ControllerTuning.maximumSubscribers - ControllerTuning.subscriberTrustedReserve
        for (address, full) in [("/rack/subscribe", "too many subscribers"), ("/rack/meter", "too many meter subscribers")] {
            let rig = Rig()
            var refused: [OSCMessage] = []
            for n in 1...(ControllerTuning.maximumSubscribers / perAddress) {
                for port in 1...perAddress { rig.send(address, [.int(Int32(port))], from: remote(n)) }
                refused += rig.outbox.take(for: remote(n))
            }
            let table = address == "/rack/meter" ? rig.controller.feedback.meterSubscribers : rig.controller.feedback.subscribers
            XCTAssertEqual(table.count, remotePlaces, address)
            XCTAssertEqual(refused, Array(repeating: rig.error(address, full + " from remote addresses"), count: ControllerTuning.subscriberTrustedReserve))
            rig.send(address)
            XCTAssertEqual(rig.replies(), [], "the local user still subscribes")
        }
    }

    /// Four subscriptions of one remote address and ten recalls within a second: what reaches
    /// the address stays within its reply budget (what it sent, twice, and a second's allowance).
    func testPushesToARemoteSubscriberSpendItsReplyBudget() {
        let rig = Rig()
        var sent = 0
        for port in 1...ControllerTuning.maximumSubscriptionsPerAddress {
            let request = OSCMessage("/rack/subscribe", [.int(Int32(port))]).encoded()
            rig.send(request, from: remote(1))
            sent += request.count
        }
        for i in 0..<10 {
            rig.send("/rack/preset", [.string(i % 2 == 0 ? "Warm" : "Bright")])
            rig.settle()
        }
        let pushed = rig.outbox.sent.filter { $0.to.address == remote(1).address }.map { $0.message.encoded().count }.reduce(0, +)
        XCTAssertGreaterThan(pushed, 0)
        XCTAssertLessThanOrEqual(pushed, sent * ReplyBudget.bytesPerByteReceived + Int(ReplyBudget.allowanceBytesPerSecond))
        XCTAssertGreaterThan(rig.controller.droppedPushes, 0)
    }
}
