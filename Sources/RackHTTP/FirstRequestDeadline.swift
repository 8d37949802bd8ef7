import NIOCore
import NIOHTTP1

/// Closes a connection whose first request head has not *parsed* within
/// `HTTPLimits.firstRequestSeconds`, however slowly it drips bytes (an empty line alone, or a
/// head the parser is still waiting on, does not count); then steps out of the pipeline. It sits
/// after the request decoder, so only a parsed head cancels it.
final class FirstRequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private var deadline: Scheduled<Void>?

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .seconds(HTTPLimits.firstRequestSeconds)) {
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let isHead: Bool
        if case .head = unwrapInboundIn(data) { isHead = true } else { isHead = false }
        context.fireChannelRead(data)
        if isHead {
            deadline?.cancel()
            deadline = nil
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
        }
    }
}
