import HummingbirdCore
import Logging
import NIOCore
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

/// Every connection passes here as it is accepted, before a byte is read: it is closed at once
/// when its address is not allowed or the budget is spent; otherwise it gives its place back
/// when it closes (whatever protocol it has switched to by then), and it must finish the head
/// of its first request within `HTTPLimits.firstRequestSeconds` (after that, Hummingbird's idle
/// timeout and the WebSocket's pings take over).
struct GatedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    /// Why a connection was closed at once.
    struct Refused: Error {}

    let inner: Inner
    let budget: ConnectionBudget

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard let peer = channel.remoteAddress.flatMap(HTTPPeer.init), budget.admit(peer) else {
            // (A failed setup alone leaves the socket open: close it.)
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(Refused())
        }
        let budget = self.budget
        channel.closeFuture.whenComplete { _ in budget.release(peer) }
        do {
            try channel.pipeline.syncOperations.addHandler(FirstRequestDeadline(), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Closes a connection that has not sent the whole head of its first request (up to the empty
/// line) within `HTTPLimits.firstRequestSeconds`, however slowly it drips bytes; then steps
/// out of the pipeline.
final class FirstRequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var deadline: Scheduled<Void>?
    /// The last bytes seen, to find "\r\n\r\n" across reads.
    private var tail: [UInt8] = []

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .seconds(HTTPLimits.firstRequestSeconds)) {
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        tail += buffer.readableBytesView
        let found = Self.containsHeadEnd(tail)
        if tail.count > 3 { tail.removeFirst(tail.count - 3) }
        context.fireChannelRead(data)
        if found {
            deadline?.cancel()
            deadline = nil
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
        }
    }

    static func containsHeadEnd(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return true
        }
        return false
    }
}

extension HTTPPeer {
    /// The IPv4 peer of a socket address (nil for IPv6 and Unix sockets: rack binds IPv4).
    init?(_ address: SocketAddress) {
        guard case let .v4(a) = address else { return nil }
        self.init(address: a.address.sin_addr.s_addr, port: UInt16(address.port ?? 0))
    }
}
