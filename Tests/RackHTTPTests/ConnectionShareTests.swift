@testable import RackHTTP
import XCTest

/// Remote addresses share the HTTP connections without taking the reserve kept for 127.0.0.1
/// and `--allow`ed peers, and a WebSocket client that says nothing is timed out.
final class ConnectionShareTests: XCTestCase {
    private func peer(_ hostOrder: UInt32) -> HTTPPeer { HTTPPeer(address: hostOrder.bigEndian, port: 1) }

    /// 16 remote addresses × `maximumConnectionsPerAddress` (the attack that locked the page
    /// out: all 256 places held by 127.0.0.2–17): remote ones stop at the total less the
    /// reserve, and the reserve is there for 127.0.0.1 and an `--allow`ed address alike.
    func testRemoteAddressesCannotTakeTheTrustedReserve() {
        let allowed = peer(0xc0a8_0107)
        let budget = ConnectionBudget(allow: { _ in true }, trusted: { $0.isLocal || $0.address == allowed.address })
        var remoteAdmitted = 0
        for address in 0..<UInt32(16) {
            for _ in 0..<(HTTPLimits.maximumConnectionsPerAddress + 1) where budget.admit(peer(0x7f00_0002 + address)) {
                remoteAdmitted += 1
            }
        }
        XCTAssertEqual(remoteAdmitted, HTTPLimits.maximumConnections - HTTPLimits.trustedConnectionReserve)
        for _ in 0..<(HTTPLimits.trustedConnectionReserve / 2) {
            XCTAssertTrue(budget.admit(peer(0x7f00_0001)), "127.0.0.1 takes the reserve")
            XCTAssertTrue(budget.admit(allowed), "an --allow'ed peer takes the reserve, beyond the per-address bound")
        }
        XCTAssertFalse(budget.admit(peer(0x7f00_0001)), "the total still bounds everyone")
        XCTAssertEqual(budget.open, HTTPLimits.maximumConnections)
        budget.release(peer(0x7f00_0001))
        XCTAssertFalse(budget.admit(peer(0x7f00_0012)), "a trusted place freed is not a remote one")
        budget.release(peer(0x7f00_0003))
        XCTAssertTrue(budget.admit(peer(0x7f00_0012)), "a remote place freed is")
    }

    /// Quiet for the limit: time is up; a message puts it off by the whole limit again.
    func testAQuietClientsTimeRunsOutAndAMessageRestartsIt() {
        let start = ContinuousClock.now
        let watch = IdleWatch(limit: .seconds(HTTPLimits.webSocketIdleSeconds), now: start)
        let limit = Duration.seconds(HTTPLimits.webSocketIdleSeconds)
        XCTAssertEqual(watch.remaining(at: start + limit - .seconds(1)), .seconds(1))
        XCTAssertNil(watch.remaining(at: start + limit))
        watch.heard(at: start + limit - .seconds(1))
        XCTAssertEqual(watch.remaining(at: start + limit), limit - .seconds(1))
        XCTAssertLessThan(HTTPLimits.webSocketKeepAliveSeconds, HTTPLimits.webSocketIdleSeconds,
                          "the page speaks before it would be closed")
    }
}
