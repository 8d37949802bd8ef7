import NIOCore
import NIOHTTP1

/// Holds every request head on an HTTP connection to what the parser lets through but rack
/// does not take, answering each refusal with its status and a one-line reason, then closing:
///
/// - more than one `Host` line: **400** (which one names the server is ambiguous);
/// - an absolute-form target (`GET http://other.example/…`) whose authority is not this rack
///   (see `ExposureRules.acceptsHost`): **403**, as for a foreign `Host`;
/// - a body (`Content-Length` above 0 or any `Transfer-Encoding`): **413**, at once, without
///   waiting for the body (rack serves GET and HEAD only);
///
/// and closes an HTTP/1.0 connection once its response is sent (`Connection: close` added).
/// It sits after the request decoder for the life of an HTTP connection and steps out when a
/// request asks for an upgrade (the connection then speaks WebSocket or is closed).
final class StrictRequests: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Why a request head is refused.
    struct Refusal: Equatable {
        let status: HTTPResponseStatus
        let reason: String
    }

    private let rules: ExposureRules
    /// For each request passed on and not yet answered, in order: whether the connection closes
    /// after its response (HTTP/1.0).
    private var closeAfterResponse: [Bool] = []
    /// Set once a head is refused: the rest of the input is dropped and the refusal is written
    /// when the responses in flight are done.
    private var refusal: Refusal?

    init(rules: ExposureRules) {
        self.rules = rules
    }

    // MARK: Rules

    /// Why `head` is refused, nil when it is taken.
    static func refusal(of head: HTTPRequestHead, rules: ExposureRules) -> Refusal? {
        if head.headers["host"].count > 1 {
            return Refusal(status: .badRequest, reason: "more than one Host line")
        }
        if let authority = absoluteFormAuthority(head.uri), !rules.acceptsHost(authority) {
            return Refusal(status: .forbidden, reason: "unknown Host")
        }
        let declaredLength = head.headers["content-length"].first.flatMap { Int($0) } ?? 0
        if declaredLength > 0 || head.headers.contains(name: "transfer-encoding") {
            return Refusal(status: .payloadTooLarge, reason: "requests carry no body here")
        }
        return nil
    }

    /// The authority of an absolute-form target (`http://host:port/path` → `host:port`); nil for
    /// the origin form (`/path`) and anything else.
    static func absoluteFormAuthority(_ target: String) -> String? {
        guard let schemeEnd = target.range(of: "://"), !target.hasPrefix("/") else { return nil }
        let rest = target[schemeEnd.upperBound...]
        return String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }

    /// Whether the connection closes after answering `head`: HTTP/1.0 and older.
    static func closesAfterResponse(_ head: HTTPRequestHead) -> Bool {
        head.version.major < 1 || (head.version.major == 1 && head.version.minor == 0)
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard refusal == nil else { return }
        guard case let .head(head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if let refused = Self.refusal(of: head, rules: rules) {
            refusal = refused
            if closeAfterResponse.isEmpty { answer(context: context, refused) }
            return
        }
        if head.headers.contains(name: "upgrade") {
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
            return
        }
        closeAfterResponse.append(Self.closesAfterResponse(head))
        context.fireChannelRead(data)
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case var .head(head) where head.status.code >= 200 && closeAfterResponse.first == true:
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where !closeAfterResponse.isEmpty:
            let closes = closeAfterResponse.removeFirst()
            let written = promise ?? context.eventLoop.makePromise()
            context.write(data, promise: written)
            if closes {
                let channel = context.channel
                written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            } else if closeAfterResponse.isEmpty, let refused = refusal {
                answer(context: context, refused)
            }
        default:
            context.write(data, promise: promise)
        }
    }

    /// Writes the refusal with its reason as the body and closes once it is sent.
    private func answer(context: ChannelHandlerContext, _ refused: Refusal) {
        let body = context.channel.allocator.buffer(string: refused.reason + "\n")
        let headers = HTTPHeaders([
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", "\(body.readableBytes)"),
            ("Cache-Control", "no-store"),
            ("Connection", "close"),
        ])
        let channel = context.channel
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: refused.status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
