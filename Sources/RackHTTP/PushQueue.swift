/// One WebSocket client's outgoing queue, pushes and replies together: at most
/// `HTTPLimits.pushQueueLength` wait to be written; one more drops the oldest, so a client that
/// reads too slowly loses old values and never holds up rack (yielding never waits).
enum PushQueue {
    /// The stream its writer task reads, and the continuation everyone else yields to.
    static func make() -> (pushes: AsyncStream<Outgoing>, queue: AsyncStream<Outgoing>.Continuation) {
        let (stream, continuation) = AsyncStream<Outgoing>.makeStream(bufferingPolicy: .bufferingNewest(HTTPLimits.pushQueueLength))
        return (stream, continuation)
    }
}
