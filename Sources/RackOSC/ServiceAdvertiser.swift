import CAvahi
import Glibc
import RackWire

/// Advertises the rack on the local network over DNS-SD (multicast DNS) through the Avahi
/// daemon: OSCQuery as `_oscjson._tcp` on the HTTP port and OSC as `_osc._udp` on the OSC port,
/// both under one service name (the JACK client name), IPv4 only. `_oscjson._tcp` carries one
/// TXT string, `rack-page=/ui/` (`StudioRack.pageKey` and the page's path), by which other racks
/// recognise it (`StudioBrowser`); an OSCQuery client reads the rest from `?HOST_INFO`.
///
/// A socket bound to loopback (127/8) is not advertised: other machines would be sent to a port
/// they cannot reach. One bound to a single address is advertised on the interface holding that
/// address; one bound to 0.0.0.0 on every interface.
///
/// Everything runs on Avahi's own thread (libavahi-client's threaded poll): nothing here waits
/// for the daemon, and the render thread never comes near it. With no daemon it says nothing and
/// waits for one; a daemon restart is followed by a new registration, a name taken on the network
/// by "NAME #2". `stop` (or the end of the object) withdraws the services.
public final class ServiceAdvertiser {
    /// What the daemon made of the services (reported on Avahi's thread).
    public enum Event: Sendable, Equatable {
        /// Every service is registered under `name`; `services` lists them for the user
        /// ("_oscjson._tcp port 8001, _osc._udp port 8000").
        case established(name: String, services: String)
        /// The daemon refused the services, for `reason`.
        case failed(reason: String)
    }

    /// The reporting closure, kept alive for the C side as long as the advertiser runs.
    private final class Sink: Sendable {
        let services: String
        let report: @Sendable (Event) -> Void
        init(services: String, report: @escaping @Sendable (Event) -> Void) {
            self.services = services
            self.report = report
        }
    }

    private var handle: OpaquePointer?
    private let sink: Unmanaged<Sink>

    /// Starts advertising `http` as `_oscjson._tcp` (with `pagePath`, the web page's path, as its
    /// `rack-page` TXT string unless nil) and `osc` as `_osc._udp` (each the address it is bound
    /// to and its port; nil leaves it out). Nil when there is nothing to advertise (both
    /// loopback or absent) or Avahi's thread cannot be started.
    public init?(name: String, http: OSCEndpoint?, pagePath: String? = nil, osc: OSCEndpoint?,
                 report: @escaping @Sendable (Event) -> Void) {
        let http = http.flatMap(Self.advertised)
        let osc = osc.flatMap(Self.advertised)
        guard http != nil || osc != nil else { return nil }
        let services = [http.map { "_oscjson._tcp port \($0.port)" }, osc.map { "_osc._udp port \($0.port)" }]
            .compactMap { $0 }.joined(separator: ", ")
        let sink = Unmanaged.passRetained(Sink(services: services, report: report))
        var error: Int32 = 0
        let txt = pagePath.map { "\(StudioRack.pageKey)=\($0)" }
        let started = rack_avahi_start(name, http?.port ?? -1, http?.interface ?? -1, txt, osc?.port ?? -1, osc?.interface ?? -1, { context, event, text in
            guard let context else { return }
            let text = text.map { String(cString: $0) } ?? ""
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            sink.report(event == Int32(RACK_AVAHI_ESTABLISHED) ? .established(name: text, services: sink.services) : .failed(reason: text))
        }, sink.toOpaque(), &error)
        guard let started else {
            sink.release()
            return nil
        }
        self.handle = started
        self.sink = sink
    }

    /// Withdraws the services and stops Avahi's thread (no report comes after it returns).
    public func stop() {
        guard let h = handle else { return }
        handle = nil
        rack_avahi_stop(h)
        sink.release()
    }

    deinit { stop() }

    /// A socket as Avahi is to advertise it: the port and the interface index (-1: every
    /// interface); nil for loopback.
    private static func advertised(_ e: OSCEndpoint) -> (port: Int32, interface: Int32)? {
        let address = e.hostOrderAddress
        if address >> 24 == 127 { return nil }
        return (Int32(e.port), address == 0 ? -1 : interfaceIndex(holding: e.address) ?? -1)
    }

    /// The index of the network interface that holds the IPv4 `address` (network byte order).
    static func interfaceIndex(holding address: UInt32) -> Int32? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var next: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = next {
            defer { next = entry.pointee.ifa_next }
            guard let a = entry.pointee.ifa_addr, a.pointee.sa_family == sa_family_t(AF_INET), let name = entry.pointee.ifa_name else { continue }
            let v4 = UnsafeRawPointer(a).loadUnaligned(as: sockaddr_in.self)
            if v4.sin_addr.s_addr == address {
                let index = if_nametoindex(name)
                return index > 0 ? Int32(index) : nil
            }
        }
        return nil
    }
}
