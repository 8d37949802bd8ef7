import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import RackWire
import Synchronization

/// The OSCQuery server of `rack run`: HTTP and WebSocket on one port, on an event loop thread of
/// its own. It reaches the rest of rack only through `RackHTTPHost` (datagrams in) and
/// `LiveState` (values out); it never touches the engine or the render thread.
public final class RackHTTPServer: Sendable {
    /// Where to listen and what to tell clients.
    public struct Configuration: Sendable {
        /// IPv4 address to bind (loopback unless the user says otherwise).
        public var host: String
        /// TCP port; 0 lets the system choose (`port` tells which).
        public var port: Int
        /// `HOST_INFO` `NAME` (the JACK client name).
        public var name: String
        /// Where rack's OSC listens (`OSC_IP`, `OSC_PORT`).
        public var oscHost: String
        public var oscPort: Int
        /// `--allow`: whether a peer may connect at all.
        public var allow: @Sendable (HTTPPeer) -> Bool
        /// Whether a peer is the user's own (127.0.0.1 or `--allow`ed): it may use the places
        /// `HTTPLimits.trustedConnectionReserve` keeps, and has no per-address bound.
        public var trusted: @Sendable (HTTPPeer) -> Bool

        public init(host: String, port: Int, name: String, oscHost: String, oscPort: Int,
                    allow: @escaping @Sendable (HTTPPeer) -> Bool = { _ in true },
                    trusted: @escaping @Sendable (HTTPPeer) -> Bool = { $0.isLocal }) {
            self.host = host
            self.port = port
            self.name = name
            self.oscHost = oscHost
            self.oscPort = oscPort
            self.allow = allow
            self.trusted = trusted
        }
    }

    /// Why the server could not start.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Where the web page lives (what rack's DNS-SD TXT string names, for other racks' lists).
    public static let pagePath = PageAssets.basePath

    public let state: LiveState
    private let configuration: Configuration
    private let host: any RackHTTPHost
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let running = Mutex<Task<Void, Never>?>(nil)
    private let boundPort = Atomic<Int>(0)

    public init(configuration: Configuration, state: LiveState, host: any RackHTTPHost) {
        self.configuration = configuration
        self.state = state
        self.host = host
    }

    /// The port the server listens on (after `start`).
    public var port: Int { boundPort.load(ordering: .acquiring) }

    /// Binds and starts serving; returns once the socket listens (or throws why not).
    public func start(timeoutSeconds: Double = 10) throws {
        let ready = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        let budget = ConnectionBudget(allow: configuration.allow, trusted: configuration.trusted)
        let rules = ExposureRules.currentMachine()
        let info = HostInfoSource(configuration: configuration, port: self)
        let pictures = PagePictures.all.map { PictureWorker(picture: $0, state: self.state) }
        let responder = OSCQueryResponder(state: state, info: info, rules: rules, pictures: pictures)
        let state = self.state
        let host = self.host
        var logger = Logger(label: "rack.http")
        logger.logLevel = .critical
        let http1 = HTTP1Channel.Configuration(
            idleTimeout: .seconds(HTTPLimits.idleTimeoutSeconds),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: HTTPLimits.maximumHeaderFieldBytes,
                                            maxHeaderListSize: HTTPLimits.maximumHeaderListBytes,
                                            maxHeaderFieldCount: HTTPLimits.maximumHeaderFieldCount))
        // RFC 6455: an unmasked client frame closes with 1002, a text message that is not
        // UTF-8 with 1007.
        let ws = WebSocketServerConfiguration(maxFrameSize: HTTPLimits.maximumWebSocketMessageBytes,
                                              extensions: [MaskedClientFrames.factory],
                                              autoPing: .enabled(timePeriod: .seconds(HTTPLimits.webSocketPingSeconds)),
                                              validateUTF8: true)
        let app = Application(
            responder: responder,
            server: HTTPServerBuilder { responder in
                GatedChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(http1: http1, ws: ws)) {
                    request, channel, _ in
                    // The `UpgradeGate` has answered a foreign Origin or Host with 403 before this;
                    // anything refused here is answered 400 by the WebSocket library.
                    guard let peer = channel.remoteAddress.flatMap(HTTPPeer.init), budget.allows(peer),
                          rules.acceptsHost(request.authority),
                          rules.acceptsOrigin(request.headerFields[.origin], authority: request.authority)
                    else { return .dontUpgrade }
                    let session = WebSocketSession(state: state, host: host, peer: peer) { channel.close(promise: nil) }
                    return .upgrade([:]) { inbound, outbound, _ in try await session.run(inbound: inbound, outbound: outbound) }
                }, budget: budget, rules: rules)
            },
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { [self] channel in
                self.boundPort.store(channel.localAddress?.port ?? 0, ordering: .releasing)
                ready.signal()
            },
            eventLoopGroupProvider: .shared(group),
            logger: logger)
        let task = Task.detached {
            do {
                try await app.runService(gracefulShutdownSignals: [])
            } catch {
                failure.withLock { $0 = "\(error)" }
                ready.signal()
            }
        }
        running.withLock { $0 = task }
        if ready.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            throw StartError(description: "the HTTP server did not start within \(formatSeconds(timeoutSeconds))")
        }
        if let why = failure.withLock({ $0 }) { throw StartError(description: why) }
        for worker in pictures { worker.start() }
    }

    /// Stops serving and closes every connection (waits up to `timeoutSeconds`). For the
    /// process's exit: the event-loop thread stays until then.
    public func stop(timeoutSeconds: Double = 2) {
        guard let task = running.withLock({ t -> Task<Void, Never>? in defer { t = nil }; return t }) else { return }
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            task.cancel()
            await task.value
            done.signal()
        }
        // The event-loop thread is left to the process's exit (rack stops the server only when it
        // exits): shutting it down here raced with connections still closing, which then could
        // not schedule their last tasks and NIO printed an error on the way out (about 1 exit
        // in 25).
        _ = done.wait(timeout: .now() + timeoutSeconds)
    }
}

/// `HOST_INFO` with the port the server actually bound.
final class HostInfoSource: Sendable {
    private let configuration: RackHTTPServer.Configuration
    private let server: RackHTTPServer

    init(configuration: RackHTTPServer.Configuration, port server: RackHTTPServer) {
        self.configuration = configuration
        self.server = server
    }

    var info: HostInfo {
        HostInfo(name: configuration.name, oscHost: configuration.oscHost, oscPort: configuration.oscPort,
                 httpHost: configuration.host, httpPort: server.port)
    }
}

private func formatSeconds(_ s: Double) -> String { s == s.rounded() ? "\(Int(s)) s" : "\(s) s" }
