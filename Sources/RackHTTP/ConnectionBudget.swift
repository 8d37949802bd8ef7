import RackWire
import Synchronization

/// Counts open connections, in all and per remote address, and decides who may connect
/// (`--allow` and `HTTPLimits`). Shared by every connection's `ConnectionGate`.
///
/// Trusted peers (127.0.0.1 and `--allow`ed ones) are bounded only by `maximumTotal`; any other
/// address by `maximumPerAddress`, and such addresses together by `maximumTotal -
/// trustedReserve`: the reserve is kept for this machine's user, which remote clients cannot take.
final class ConnectionBudget: Sendable {
    private struct Counts {
        var total = 0
        var remote = 0
        var perAddress: [UInt32: Int] = [:]
    }

    private let counts = Mutex(Counts())
    private let allow: @Sendable (HTTPPeer) -> Bool
    private let trusted: @Sendable (HTTPPeer) -> Bool
    let maximumTotal: Int
    let maximumPerAddress: Int
    let trustedReserve: Int

    init(allow: @escaping @Sendable (HTTPPeer) -> Bool,
         trusted: @escaping @Sendable (HTTPPeer) -> Bool = { $0.isLocal },
         maximumTotal: Int = HTTPLimits.maximumConnections,
         maximumPerAddress: Int = HTTPLimits.maximumConnectionsPerAddress,
         trustedReserve: Int = HTTPLimits.trustedConnectionReserve) {
        self.allow = allow
        self.trusted = trusted
        self.maximumTotal = maximumTotal
        self.maximumPerAddress = maximumPerAddress
        self.trustedReserve = trustedReserve
    }

    /// Takes a place for `peer`, or returns false (not allowed, or no place left).
    func admit(_ peer: HTTPPeer) -> Bool {
        guard allow(peer) else { return false }
        let remote = !trusted(peer)
        return counts.withLock { c in
            let mine = c.perAddress[peer.address, default: 0]
            guard c.total < maximumTotal else { return false }
            if remote {
                guard mine < maximumPerAddress, c.remote < maximumTotal - trustedReserve else { return false }
                c.remote += 1
            }
            c.total += 1
            c.perAddress[peer.address] = mine + 1
            return true
        }
    }

    /// Gives back the place of a closed connection.
    func release(_ peer: HTTPPeer) {
        let remote = !trusted(peer)
        counts.withLock { c in
            c.total -= 1
            if remote { c.remote -= 1 }
            let left = c.perAddress[peer.address, default: 1] - 1
            c.perAddress[peer.address] = left > 0 ? left : nil
        }
    }

    /// Connections open now (tests).
    var open: Int { counts.withLock { $0.total } }

    /// Whether `peer` may use the server at all (`--allow`).
    func allows(_ peer: HTTPPeer) -> Bool { allow(peer) }
}
