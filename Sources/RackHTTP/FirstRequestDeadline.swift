import NIOCore

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
