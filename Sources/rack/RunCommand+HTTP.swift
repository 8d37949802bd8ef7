import RackEngine
import RackHTTP
import RackJack
import RackOSC

/// Defaults of the HTTP side of `rack run`.
enum HTTPDefaults {
    /// The TCP port of OSCQuery and the web page unless `--http-port` says otherwise: the
    /// neighbour of the default OSC port (8000), free on most machines (8080 rarely is).
    static let port: UInt16 = 8001
}

extension JackDriver: JackDriverStatus {}

extension RunCommand {
    /// Starts the OSCQuery server beside `controller`: values published first, then the socket
    /// bound (exit 69 when the port is taken, as for OSC).
    func startHTTP(bridge: HTTPBridge, controller c: RackController, preset: String, clientName: String,
                   osc: OSCEndpoint) throws -> RackHTTPServer {
        c.feedbackObserver = { [unowned bridge] m in bridge.publish(m) }
        bridge.publishInitial(controller: c, preset: preset)
        let ranges = allow.compactMap(AddressRange.init)
        let server = RackHTTPServer(
            configuration: .init(host: httpHost, port: Int(httpPort), name: clientName, oscHost: osc.host, oscPort: Int(osc.port),
                                 allow: { peer in
                                     ranges.isEmpty || ranges.contains { $0.contains(OSCEndpoint(address: peer.address, port: peer.port)) }
                                 }),
            state: bridge.state, host: bridge)
        do {
            try server.start()
        } catch {
            throw RackError(.unavailable, "rack: cannot serve OSCQuery on \(httpHost):\(httpPort): \(error) (--http-port 0 lets the system choose)")
        }
        if httpHost != "127.0.0.1" && allow.isEmpty {
            warn("rack: warning: the web page and OSCQuery are reachable from \(httpHost); anyone who can connect controls the rack (see --allow)")
        }
        return server
    }
}
