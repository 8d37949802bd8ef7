import NIOCore
import NIOHTTP1

/// The one way a handler in front of the routes refuses a request: `status` with `reason` as a
/// plain-text body, then the connection closes once it is sent (the gate's 403, the parser's
/// 4xx). The handler's outbound type must be `HTTPServerResponsePart`.
func answerAndClose(_ context: ChannelHandlerContext, status: HTTPResponseStatus, reason: String) {
    let body = context.channel.allocator.buffer(string: reason + "\n")
    let headers = HTTPHeaders([
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Length", "\(body.readableBytes)"),
        ("Cache-Control", "no-store"),
        ("Connection", "close"),
    ])
    let channel = context.channel
    context.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
    context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
    context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in channel.close(promise: nil) }
}
