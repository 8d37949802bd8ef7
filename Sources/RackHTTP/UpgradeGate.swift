import NIOCore
import NIOHTTP1

/// Answers a protocol upgrade that rack refuses — a WebSocket from a foreign `Origin` or for an
/// unknown `Host` — with **403 Forbidden** and a one-line reason, then closes the connection.
/// It sits between NIO's request decoder and the WebSocket upgrader, so a refused request never
/// reaches the upgrader (whose own refusal is a bare 400). After the first request head, refused
/// or not, it steps out of the pipeline: later requests on the connection are plain HTTP (an
/// upgrade among them is sent to a new connection by the WebSocket library, and so meets a new
/// gate).
final class UpgradeGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let rules: ExposureRules
    /// Set once the request is refused: the rest of it (body parts, end) is dropped.
    private var refused = false

    init(rules: ExposureRules) {
        self.rules = rules
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case let .head(head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if let reason = Self.refusal(of: head, rules: rules) {
            refused = true
            answerAndClose(context, status: .forbidden, reason: reason)
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }

    /// Why an upgrade request is refused; nil when `head` asks for no upgrade, or for one that
    /// the exposure rules accept.
    static func refusal(of head: HTTPRequestHead, rules: ExposureRules) -> String? {
        guard head.headers.contains(name: "upgrade") else { return nil }
        // More than one Host or Origin line is no page's own request.
        let hosts = head.headers["host"]
        let authority = hosts.count == 1 ? hosts[0] : nil
        if !rules.acceptsHost(authority) { return "unknown Host" }
        let origins = head.headers["origin"]
        let origin = origins.isEmpty ? nil : origins.joined(separator: ", ")
        if !rules.acceptsOrigin(origin, authority: authority) { return "WebSocket from a foreign Origin refused" }
        return nil
    }
}
