import XCTest
import RackEngine
@testable import RackOSC
import RackWire

/// No loop runs for ever: a rack never subscribes its own socket, an error is never answered
/// with an error, and racks subscribed to each other settle after one exchange.
final class LoopTests: XCTestCase {
    /// A rack whose OSC socket is `bound`, on a machine whose interface addresses are 127.0.0.1
    /// and 192.0.2.50.
    func rig(bound: String) -> Rig {
        let rig = Rig()
        let interfaces = ["127.0.0.1", "192.0.2.50"].compactMap { OSCEndpoint(host: $0, port: 0)?.address }
        rig.controller.ownEndpoints = OwnEndpoints(socket: OSCEndpoint(bound)!, interfaceAddresses: { interfaces })
        return rig
    }

    func testASubscriptionToTheRacksOwnSocketIsRefused() {
        let rig = rig(bound: "127.0.0.1:8000")
        let own = OSCEndpoint("127.0.0.1:8000")!
        for address in ["/rack/subscribe", "/rack/meter"] {
            rig.send(address, [.int(8000)])
            XCTAssertEqual(rig.replies(), [rig.error(address, RackController.ownTargetReason(own))])
        }
        rig.send("/rack/cutoff", [.float(800)])
        rig.settle()
        rig.controller.tick(now: rig.now + 1)
        XCTAssertEqual(rig.outbox.take(for: own), [], "nothing sent to its own socket")
        // 127.0.0.2 does not reach a socket bound to 127.0.0.1 (it may be another rack's).
        rig.send("/rack/subscribe", [.int(8000)], from: OSCEndpoint("127.0.0.2:9000")!)
        XCTAssertEqual(rig.outbox.take(for: OSCEndpoint("127.0.0.2:9000")!), [])
    }

    func testOnAWildcardBindEveryAddressOfTheMachineIsItsOwn() {
        let rig = rig(bound: "0.0.0.0:8000")
        for host in ["127.0.0.1", "127.0.0.2", "192.0.2.50"] {
            let from = OSCEndpoint(host: host, port: 9000)!
            rig.send("/rack/meter", [.int(8000)], from: from)
            XCTAssertEqual(rig.outbox.take(for: from), [rig.error("/rack/meter", RackController.ownTargetReason(OSCEndpoint(host: host, port: 8000)!))], host)
        }
        for (host, port) in [("192.0.2.51", 8000), ("127.0.0.1", 8001)] {
            let from = OSCEndpoint(host: host, port: 9000)!
            rig.send("/rack/subscribe", [.int(Int32(port))], from: from)
            XCTAssertEqual(rig.outbox.take(for: from), [], "\(host):\(port) is not the rack's")
        }
    }

    func testAnErrorIsNeverAnsweredWithAnError() {
        let rig = Rig()
        rig.send("/rack/error", [.string("/rack/meter"), .string("expects …")])
        rig.send("/rack/error")
        XCTAssertEqual(rig.replies(), [])
        rig.send("/rack/nonsense")
        XCTAssertEqual(rig.replies(), [rig.error("/rack/nonsense", "unknown address")], "other mistakes are answered")
    }

    func testAValueThatIsTheTargetIsNotAppliedOrToldAgain() {
        let rig = Rig()
        rig.send("/rack/subscribe")
        rig.send("/rack/cutoff", [.float(800)])
        rig.settle()
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/cutoff", [.float(800)])])
        rig.send("/rack/cutoff", [.float(800)])
        rig.send("/rack/cutoff", [.double(800.000_000_01)])   // the same 32-bit float
        rig.settle()
        XCTAssertEqual(rig.replies(), [])
        rig.send("/rack/preset", [.string("Warm")])
        rig.settle()
        XCTAssertFalse(rig.replies().isEmpty)
        rig.send("/rack/preset", [.string("Warm")])
        rig.settle()
        XCTAssertEqual(rig.replies(), [], "a recall that changes nothing")
        rig.send("/rack/cutoff", [.float(801)])
        rig.send("/rack/preset", [.string("Warm")])
        rig.settle()
        XCTAssertTrue(rig.replies().contains(OSCMessage("/rack/preset", [.string("Warm")])), "a recall that changes something")
    }

    /// Two racks, each subscribed to the other (a natural way to link them): a change on one,
    /// and a preset recall, are told back and forth until they change nothing, a few exchanges
    /// at most (every datagram handed on at once, as on loopback).
    func testTwoRacksSubscribedToEachOtherSettle() {
        let a = rig(bound: "127.0.0.1:8001"), b = rig(bound: "127.0.0.1:8002")
        let atA = OSCEndpoint("127.0.0.1:8001")!, atB = OSCEndpoint("127.0.0.1:8002")!
        a.send("/rack/subscribe", [.int(8002)])
        b.send("/rack/subscribe", [.int(8001)])
        // The last two cross on the way: the other rack's echo of the value arrives after the recall.
        let cases: [[OSCMessage]] = [[OSCMessage("/rack/cutoff", [.float(800)])], [OSCMessage("/rack/room", [.string("cathedral")])],
                                     [OSCMessage("/rack/preset", [.string("Bright")])],
                                     [OSCMessage("/rack/mix", [.float(0.35)]), OSCMessage("/rack/preset", [.string("Warm")])]]
        for changes in cases {
            let change = changes[0]
            for m in changes {
                a.send(m.encoded())
                a.settle()
            }
            var exchanges = 0
            while exchanges < 20 {
                let toB = a.outbox.take(for: atB), toA = b.outbox.take(for: atA)
                if toB.isEmpty && toA.isEmpty { break }
                exchanges += 1
                for m in toB { b.send(m.encoded(), from: atA) }
                for m in toA { a.send(m.encoded(), from: atB) }
                a.settle()
                b.settle()
            }
            XCTAssertLessThanOrEqual(exchanges, 3, "\(change.address): still bouncing after \(exchanges) exchanges")
            XCTAssertEqual(a.controller.targets, b.controller.targets, change.address)
        }
    }
}
