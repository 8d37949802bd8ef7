import RackHTTP
import RackOSC
import RackWire

extension RunCommand {
    /// Advertises OSCQuery on `httpPort` (bound to `--http-host`) and OSC at `osc` over DNS-SD
    /// under `name` (the JACK client name). Nil when there is nothing to advertise (loopback).
    /// With no Avahi daemon nothing is printed; the line saying under which name the services
    /// are registered comes from Avahi's thread, once the daemon has confirmed them; the name in
    /// use is handed to `studio` (so rack leaves itself out of its own list).
    func advertise(name: String, httpPort: Int, osc: OSCEndpoint, studio: StudioBrowser?) -> ServiceAdvertiser? {
        let http = OSCEndpoint(host: httpHost, port: UInt16(clamping: httpPort))
        return ServiceAdvertiser(name: name, http: http, pagePath: RackHTTPServer.pagePath, osc: osc) { event in
            switch event {
            case .established(let name, let services):
                if advertisesHTTP { studio?.setOwnName(name) }
                say("rack: advertised as '\(name)' over DNS-SD (\(services))")
            case .failed(let reason):
                warn("rack: warning: DNS-SD advertising failed: \(reason)")
            }
        }
    }
}
