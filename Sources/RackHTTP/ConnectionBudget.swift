import Synchronization

/// Counts open connections, in all and per remote address, and decides who may connect
/// (`--allow` and `HTTPLimits`). Shared by every connection's `ConnectionGate`.
final class ConnectionBudget: Sendable {
    private struct Counts {
        var total = 0
        var perAddress: [UInt32: Int] = [:]
    }

    private let counts = Mutex(Counts())
    private let allow: @Sendable (HTTPPeer) -> Bool
    let maximumTotal: Int
    let maximumPerAddress: Int

    init(allow: @escaping @Sendable (HTTPPeer) -> Bool,
         maximumTotal: Int = HTTPLimits.maximumConnections,
         maximumPerAddress: Int = HTTPLimits.maximumConnectionsPerAddress) {
        self.allow = allow
        self.maximumTotal = maximumTotal
        self.maximumPerAddress = maximumPerAddress
    }

    /// Takes a place for `peer`, or returns false (not allowed, or no place left).
    func admit(_ peer: HTTPPeer) -> Bool {
        guard allow(peer) else { return false }
        return counts.withLock { c in
            let mine = c.perAddress[peer.address, default: 0]
            guard c.total < maximumTotal, peer.isLocal || mine < maximumPerAddress else { return false }
            c.total += 1
            c.perAddress[peer.address] = mine + 1
            return true
        }
    }

    /// Gives back the place of a closed connection.
    func release(_ peer: HTTPPeer) {
        counts.withLock { c in
            c.total -= 1
            let left = c.perAddress[peer.address, default: 1] - 1
            c.perAddress[peer.address] = left > 0 ? left : nil
        }
    }

    /// Connections open now (tests).
    var open: Int { counts.withLock { $0.total } }

    /// Whether `peer` may use the server at all (`--allow`).
    func allows(_ peer: HTTPPeer) -> Bool { allow(peer) }
}
