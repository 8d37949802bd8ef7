import Synchronization

/// When a WebSocket's client last sent a message, and how long until it has been quiet for
/// `limit` (`HTTPLimits.webSocketIdleSeconds`): then its socket is closed. Pongs are not
/// messages (see `HTTPLimits.webSocketIdleSeconds`).
final class IdleWatch: Sendable {
    /// Quiet time after which the socket is closed.
    let limit: Duration
    private let last: Mutex<ContinuousClock.Instant>

    init(limit: Duration = .seconds(HTTPLimits.webSocketIdleSeconds), now: ContinuousClock.Instant = .now) {
        self.limit = limit
        self.last = Mutex(now)
    }

    /// The client sent a message at `now`.
    func heard(at now: ContinuousClock.Instant = .now) {
        last.withLock { $0 = max($0, now) }
    }

    /// How long the client may still stay quiet, seen at `now`; nil when its time is up.
    func remaining(at now: ContinuousClock.Instant = .now) -> Duration? {
        let left = last.withLock { $0 } + limit - now
        return left > .zero ? left : nil
    }
}
