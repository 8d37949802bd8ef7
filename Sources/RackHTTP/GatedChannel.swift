import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Every connection passes here as it is accepted, before a byte is read: it is closed at once
/// when its address is not allowed or the budget is spent; otherwise it gives its place back
/// when it closes (whatever protocol it has switched to by then). Once the inner channel has set
/// up its HTTP pipeline, handlers go in after the request decoder: for the first request a
/// `MalformedRequestAnswer` (a head that does not parse gets its 4xx and a close) and a
/// `FirstRequestDeadline` (a head must parse within `HTTPLimits.firstRequestSeconds`; after
/// that, Hummingbird's idle timeout and the WebSocket's pings take over); for every request
/// `StrictRequests` (duplicate `Host`, foreign absolute-form targets, bodies, HTTP/1.0); and for
/// the first an `UpgradeGate` (a refused upgrade gets 403).
struct GatedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    /// Why a connection was closed at once.
    struct Refused: Error {}

    let inner: Inner
    let budget: ConnectionBudget
    let rules: ExposureRules

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard let peer = channel.remoteAddress.flatMap(HTTPPeer.init), budget.admit(peer) else {
            // (A failed setup alone leaves the socket open: close it.)
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(Refused())
        }
        let budget = self.budget
        channel.closeFuture.whenComplete { _ in budget.release(peer) }
        let rules = self.rules
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            // In order after the decoder: a parse error is answered, the deadline runs until a
            // head parses, every head is held to rack's rules, and a refused upgrade is
            // answered 403.
            try operations.addHandlers([MalformedRequestAnswer(), FirstRequestDeadline(), StrictRequests(rules: rules),
                                        UpgradeGate(rules: rules)],
                                       position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPPeer {
    /// The IPv4 peer of a socket address (nil for IPv6 and Unix sockets: rack binds IPv4), whose
    /// OSC, if any, goes over its WebSocket.
    init?(_ address: SocketAddress) {
        guard case let .v4(a) = address else { return nil }
        self.init(address: a.address.sin_addr.s_addr, port: UInt16(address.port ?? 0), transport: .webSocket)
    }
}
