import RackEngine
import RackHTTP
import RackJack
import RackOSC
import RackWire

/// Defaults of the HTTP side of `rack run`.
enum HTTPDefaults {
    /// The TCP port of OSCQuery and the web page unless `--http-port` says otherwise: the
    /// neighbour of the default OSC port (8000), free on most machines (8080 rarely is). When it
    /// is taken, rack takes any free port instead (and prints it).
    static let port: UInt16 = 8001
}

extension JackDriver: JackDriverStatus {}

extension RunCommand {
    /// Starts the OSCQuery server beside `controller`: values published first, then the socket
    /// bound (exit 69 when the port is taken, as for OSC).
    func startHTTP(bridge: HTTPBridge, controller c: RackController, driver: JackDriver, preset: String,
                   osc: OSCEndpoint) throws -> RackHTTPServer {
        let clientName = driver.clientName
        c.subscribeToChanges { [unowned bridge] record in
            if let m = record.feedbackMessage { bridge.publish(m) }
        }
        c.feedbackObserver = { [unowned bridge] m in bridge.publish(m) }
        bridge.publishInitial(controller: c, preset: preset, driver: driver)
        let ranges = allow.compactMap(AddressRange.init)
        func server(port: UInt16) -> RackHTTPServer {
            RackHTTPServer(
                configuration: .init(host: httpHost, port: Int(port), name: clientName, oscHost: osc.host, oscPort: Int(osc.port),
                                     allow: { peer in
                                         ranges.isEmpty || ranges.contains { $0.contains(peer) }
                                     },
                                     trusted: { peer in
                                         peer.isLocal || ranges.contains { $0.contains(peer) }
                                     }),
                state: bridge.state, host: bridge)
        }
        let port = httpPort ?? HTTPDefaults.port
        var s = server(port: port)
        do {
            try s.start()
        } catch where httpPort == nil {
            // The default port is taken (another rack?): any free one will do, and is printed.
            s.stop()
            s = server(port: 0)
            do { try s.start() } catch {
                throw RackError(.unavailable, "rack: cannot serve OSCQuery on \(httpHost): \(error)")
            }
        } catch {
            throw RackError(.unavailable, "rack: cannot serve OSCQuery on \(httpHost):\(port): \(error) (--http-port 0 lets the system choose)")
        }
        if httpHost != "127.0.0.1" && allow.isEmpty {
            warn("rack: warning: the web page and OSCQuery are reachable from \(httpHost); anyone who can connect controls the rack (see --allow)")
        }
        return s
    }
}
