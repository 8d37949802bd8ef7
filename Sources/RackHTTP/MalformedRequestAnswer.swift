import NIOCore
import NIOHTTP1

/// Answers a first request that does not parse (a bad request line, an unknown method, control
/// bytes in the target, too many or too long header lines, `Content-Length` beside
/// `Transfer-Encoding`, …) with its 4xx and a one-line reason, then closes the connection. It
/// sits after the request decoder until the first head has parsed; later requests on the
/// connection are answered by Hummingbird's own HTTP handlers.
final class MalformedRequestAnswer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Set once answered: nothing more is read or written.
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        let isHead: Bool
        if case .head = unwrapInboundIn(data) { isHead = true } else { isHead = false }
        context.fireChannelRead(data)
        if isHead { context.pipeline.syncOperations.removeHandler(self, promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        answerAndClose(context, status: Self.status(of: parserError), reason: "bad request: \(parserError)")
    }

    /// The status for a parse error: 431 for header lines beyond `HTTPLimits`, 400 otherwise.
    static func status(of error: HTTPParserError) -> HTTPResponseStatus {
        switch error {
        case .headerOverflow: .requestHeaderFieldsTooLarge
        default: .badRequest
        }
    }
}
