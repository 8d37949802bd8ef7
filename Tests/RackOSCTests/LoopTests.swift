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
            XCTAssertEqual(rig.replies(), [rig.error(address, SubscriptionCommands.ownTargetReason(own))])
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
            XCTAssertEqual(rig.outbox.take(for: from), [rig.error("/rack/meter", SubscriptionCommands.ownTargetReason(OSCEndpoint(host: host, port: 8000)!))], host)
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

    /// Two linked racks, the changes of one user crossing the other rack's feedback in every
    /// order the network and the two render threads can give them: datagrams handed on one at a
    /// time, each rack rendering (and so echoing what it applied) or not between any two, as
    /// under load. Whatever the order, they settle (nothing is told back to the rack it came
    /// from) and end on the same state.
    func testTwoLinkedRacksSettleWhateverOrderTheirMessagesCrossIn() {
        let atA = OSCEndpoint("127.0.0.1:8001")!, atB = OSCEndpoint("127.0.0.1:8002")!
        for seed in 0..<40 {
            var random = SplitMix64(seed: UInt64(seed))
            let a = rig(bound: "127.0.0.1:8001"), b = rig(bound: "127.0.0.1:8002")
            a.send("/rack/subscribe", [.int(8002)])
            b.send("/rack/subscribe", [.int(8001)])
            let user = [OSCMessage("/rack/mix", [.float(0.35)]), OSCMessage("/rack/preset", [.string("Warm")]),
                        OSCMessage("/rack/cutoff", [.float(700)])]
            var toA: [OSCMessage] = [], toB: [OSCMessage] = []
            var pendingUser = user[...]
            var steps = 0
            func deliver(_ m: OSCMessage, to rig: Rig, from: OSCEndpoint) {
                m.encoded().withUnsafeBytes { rig.controller.handle(datagram: $0, from: from) }   // no render: as under load
            }
            func collect() {
                toB += a.outbox.take(for: atB)
                toA += b.outbox.take(for: atA)
            }
            while steps < 2_000 {
                collect()
                if pendingUser.isEmpty && toA.isEmpty && toB.isEmpty {
                    a.settle(); b.settle(); collect()
                    if toA.isEmpty && toB.isEmpty { break }
                }
                steps += 1
                switch random.next() % 5 {
                case 0 where !pendingUser.isEmpty:
                    deliver(pendingUser.removeFirst(), to: b, from: b.client)
                case 1 where !toA.isEmpty:
                    deliver(toA.removeFirst(), to: a, from: atB)
                case 2 where !toB.isEmpty:
                    deliver(toB.removeFirst(), to: b, from: atA)
                case 3: a.settle(blocks: 1)
                default: b.settle(blocks: 1)
                }
            }
            XCTAssertLessThan(steps, 2_000, "seed \(seed): still bouncing after \(steps) steps")
            XCTAssertEqual(a.controller.targets, b.controller.targets, "seed \(seed)")
            if steps >= 2_000 { return }
        }
    }
}

/// A small seeded generator (SplitMix64, Steele, Lea and Flood 2014): the same orders every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
