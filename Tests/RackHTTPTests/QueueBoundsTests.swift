import Foundation
@testable import RackHTTP
import RackWire
import XCTest
import RackTestSupport

/// The two queues of the HTTP side at the README's lengths, in memory: the inbox of datagrams
/// from WebSocket clients to the control thread (`HTTPLimits.controlInboxLength`) and each
/// WebSocket's push queue (`HTTPLimits.pushQueueLength`).
final class QueueBoundsTests: XCTestCase {
    let capacity = HTTPLimits.controlInboxLength
    let pushLength = HTTPLimits.pushQueueLength
    /// Pushes made to a client that reads nothing (more than the push queue holds).
    let pushed = 600

    /// The README's "slow clients" row gives both lengths: they are the code's (so the tests
    /// below run at the README's figures).
    func testTheLengthsAreTheReadmes() throws {
        let readme = try Documentation.text()
        let row = try XCTUnwrap(readme.split(separator: "\n").first { $0.hasPrefix("| slow clients |") }, "no slow clients row")
        func figure(_ pattern: String) throws -> Int {
            let match = try XCTUnwrap(String(row).firstMatch(of: try Regex(pattern)), "the row no longer says \(pattern)")
            let digits = try XCTUnwrap(match.output[1].substring).filter(\.isNumber)
            return try XCTUnwrap(Int(digits))
        }
        XCTAssertEqual(try figure(#"an inbox of ([\d,]+) datagrams"#), capacity)
        XCTAssertEqual(try figure(#"pushes queue up to ([\d,]+) and drop the oldest"#), pushLength)
        XCTAssertEqual(try figure(#"(\d+) pushed to a client that reads nothing"#), pushed)
        XCTAssertEqual(try figure(#"it reads the newest (\d+), in order"#), pushLength)
    }

    func testTheInboxHoldsItsCapacityRefusesTheNextAndDrainsInOrder() {
        let inbox = ControlInbox<Int>(capacity: capacity)
        for n in 0..<capacity { XCTAssertTrue(inbox.offer(n), "offer \(n + 1) of \(capacity) refused") }
        XCTAssertFalse(inbox.offer(capacity), "offer \(capacity + 1) taken")
        XCTAssertEqual(inbox.takeAll(), Array(0..<capacity), "not the first \(capacity), oldest first")
        XCTAssertEqual(inbox.takeAll(), [], "a drain leaves the inbox empty")
        XCTAssertTrue(inbox.offer(-1), "refused after a drain")
        XCTAssertEqual(inbox.takeAll(), [-1])
    }

    /// A close is never lost, even to a full inbox; offers stay refused until a drain.
    func testAnInsistedItemIsQueuedBeyondTheCapacityAndKeepsItsPlace() {
        let inbox = ControlInbox<Int>(capacity: capacity)
        for n in 0..<capacity { _ = inbox.offer(n) }
        inbox.insist(-7)
        XCTAssertFalse(inbox.offer(capacity))
        XCTAssertEqual(inbox.takeAll(), Array(0..<capacity) + [-7])
    }

    /// Offers from several threads at once: exactly `capacity` taken, each sender's in its order.
    func testConcurrentOffersTakeExactlyTheCapacity() {
        let inbox = ControlInbox<Int>(capacity: capacity)
        let senders = 4, each = capacity / 2
        let taken = Counter()
        DispatchQueue.concurrentPerform(iterations: senders) { sender in
            for n in 0..<each where inbox.offer(sender * each + n) { taken.add() }
        }
        let items = inbox.takeAll()
        XCTAssertEqual(items.count, capacity)
        XCTAssertEqual(taken.value, capacity)
        for sender in 0..<senders {
            let own = items.filter { $0 / each == sender }
            XCTAssertEqual(own, own.sorted(), "sender \(sender)'s datagrams out of order")
        }
    }

    /// A WebSocket client whose datagram the full inbox refuses is answered at once on its own
    /// socket with `/rack/error ADDRESS "busy: …"`; the taken ones get no such answer.
    func testTheSenderOfARefusedDatagramIsAnsweredBusy() async throws {
        let host = InboxHost(capacity: capacity)
        let session = WebSocketSession(state: LiveState(), host: host, peer: HTTPPeer(address: 0x7F00_0001, port: 50_000)) {}
        let (pushes, queue) = PushQueue.make()
        for n in 0..<capacity { session.submit(OSCMessage("/rack/gain", [.float(Float(n % 12))]).encoded(), queue: queue) }
        session.submit(OSCMessage("/rack/cutoff", [.float(440)]).encoded(), queue: queue)
        session.submit([0x2F, 0x78], queue: queue)   // not OSC: the address is empty, as the controller's
        queue.finish()
        var answers: [OSCMessage] = []
        for await item in pushes {
            guard case let .binary(bytes) = item else { return XCTFail("a text frame") }
            answers += try bytes.withUnsafeBytes { try OSCPacket.decode($0) }.map(\.0)
        }
        let reason = "busy: \(capacity) messages from WebSocket clients are already waiting for the control thread"
        XCTAssertEqual(answers, [OSCMessage("/rack/error", [.string("/rack/cutoff"), .string(reason)]),
                                 OSCMessage("/rack/error", [.string(""), .string(reason)])])
        let queued = host.inbox.takeAll()
        XCTAssertEqual(queued.count, capacity)
        XCTAssertEqual(queued.map { $0.withUnsafeBytes { try? OSCPacket.decode($0).first?.0.arguments } },
                       (0..<capacity).map { [.float(Float($0 % 12))] }, "not the first \(capacity), in order")
    }

    /// `pushed` pushes to a client that reads nothing: it reads back exactly the newest
    /// `pushLength`, in order, and each yield past the length dropped one.
    func testAPushQueueKeepsTheNewestInOrder() async {
        let (pushes, queue) = PushQueue.make()
        var dropped = 0
        for n in 0..<pushed {
            if case .dropped = queue.yield(.text(String(n))) { dropped += 1 }
        }
        queue.finish()
        var read: [String] = []
        for await item in pushes {
            if case let .text(text) = item { read.append(text) }
        }
        XCTAssertEqual(dropped, pushed - pushLength, "a yield past the length did not drop one")
        XCTAssertEqual(read, (pushed - pushLength..<pushed).map(String.init))
    }
}

/// The host side of a WebSocket in memory: an inbox of `capacity` datagrams, never drained.
private final class InboxHost: RackHTTPHost {
    let inbox: ControlInbox<[UInt8]>
    init(capacity: Int) { inbox = ControlInbox(capacity: capacity) }
    func submit(datagram: [UInt8], from peer: HTTPPeer, reply: @escaping @Sendable ([UInt8]) -> Void) -> Bool {
        inbox.offer(datagram)
    }
    func disconnected(_ peer: HTTPPeer) {}
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
