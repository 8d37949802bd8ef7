/// The bounds of the HTTP side, each with its reason. The README's exposure rules quote them.
public enum HTTPLimits {
    /// Connections open at once, all sources together (HTTP and WebSocket). A phone, a laptop
    /// and a few OSCQuery browsers need a handful; beyond this, new connections are closed at
    /// once (the listening socket keeps accepting, so nothing queues behind them).
    public static let maximumConnections = 256
    /// Connections open at once from one remote address (neither 127.0.0.1 nor `--allow`ed);
    /// 127.0.0.1 (the user's own programs) and `--allow`ed peers are bounded only by
    /// `maximumConnections`.
    public static let maximumConnectionsPerAddress = 16
    /// Places of `maximumConnections` that remote addresses together cannot take: kept for
    /// 127.0.0.1 and `--allow`ed peers (16 remote addresses × 16 idle WebSockets used to fill all
    /// 256 and lock the local page out). 32 is a page and its pictures' sockets many times over.
    public static let trustedConnectionReserve = 32
    /// A new connection's first request head must have parsed within this time, however slowly
    /// it drips bytes, or it is closed (slow clients cannot hold places for long; a head that
    /// does not parse is answered 4xx and closed at once).
    public static let firstRequestSeconds: Int64 = 10
    /// An HTTP connection that sends no complete request for this long is closed (a WebSocket is
    /// kept alive by its own pings instead).
    public static let idleTimeoutSeconds: Int64 = 20
    /// One request header line, all header lines together, and their number. A browser sends
    /// well under 2 KB; anything larger is refused by the parser with a 4xx and the connection
    /// closed, before any handler sees it.
    public static let maximumHeaderFieldBytes = 8 * 1024
    public static let maximumHeaderListBytes = 16 * 1024
    public static let maximumHeaderFieldCount = 64
    /// Longest request target (path and query) answered; longer ones get 414.
    public static let maximumTargetBytes = 2048
    /// Largest WebSocket message taken: the largest OSC datagram rack takes over UDP (64 KiB).
    /// Larger messages close the connection (status 1009).
    public static let maximumWebSocketMessageBytes = 65_536
    /// Datagrams from WebSocket clients (all of them together) waiting for the control thread; one
    /// more is refused and its sender answered `/rack/error` (busy). The control thread empties
    /// the inbox as soon as it is woken, so only a stalled control thread or a flooding client
    /// fills it.
    public static let controlInboxLength = 1024
    /// Pushes queued for one WebSocket client before the oldest are dropped: a client that
    /// reads too slowly loses old values, never holds up rack. At 15 meter and status pushes a
    /// second plus every value change, 512 is several seconds of traffic.
    public static let pushQueueLength = 512
    /// WebSocket ping period (it finds dead peers; answered pings do not keep a socket open).
    public static let webSocketPingSeconds: Int64 = 15
    /// A WebSocket whose client sends no message (text or binary; pongs do not count: every
    /// client library answers pings by itself, so a forgotten socket would hold its place
    /// forever) for this long is closed (1001). The page sends a keep-alive every
    /// `webSocketKeepAliveSeconds`.
    public static let webSocketIdleSeconds: Int64 = 300
    /// How often the page says something on its WebSockets (an empty JSON object, ignored) so
    /// an open page is never idle: a fifth of `webSocketIdleSeconds`.
    public static let webSocketKeepAliveSeconds: Int64 = webSocketIdleSeconds / 5
}
