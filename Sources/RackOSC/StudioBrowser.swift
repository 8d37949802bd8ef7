import CAvahi
import RackWire
import Synchronization

/// Browses DNS-SD (through the Avahi daemon) for the other racks on the network: every
/// `_oscjson._tcp` service that carries rack's TXT string (`StudioRack.pageKey`), resolved to
/// an IPv4 address, kept in a bounded `StudioRoster`. Each change of the list is handed to
/// `changed`.
///
/// Everything runs on Avahi's own thread (libavahi-client's threaded poll): nothing here waits
/// for the daemon, and the render thread never comes near it. With no daemon the list stays
/// empty until one appears; when the daemon goes away, the list empties.
public final class StudioBrowser: Sendable {
    /// Services resolved at once at most; announcements beyond it meanwhile wait (`ResolveQueue`).
    public static let maximumResolving = 16
    /// Announcements waiting for a resolve at most: enough to fill the list and its waiting
    /// racks once more (twice `StudioRoster.defaultCapacity`); a flood beyond is left out.
    public static let maximumWaitingResolves = 2 * StudioRoster.defaultCapacity

    /// An announced service, as `rack_avahi_browse_resolve` takes it back.
    struct Announcement: Sendable {
        let interface: Int32
        let proto: Int32
        let name: String
        let type: String
        let domain: String
    }

    /// The roster and the reporting closures, kept alive for the C side while browsing.
    private final class Sink: Sendable {
        let roster: Mutex<StudioRoster>
        /// What is resolved now and what waits (touched on Avahi's thread only).
        let resolves = Mutex(ResolveQueue<Announcement>(places: StudioBrowser.maximumResolving,
                                                        maximumWaiting: StudioBrowser.maximumWaitingResolves))
        let changed: @Sendable ([StudioRack]) -> Void
        let daemon: @Sendable (Bool) -> Void
        init(roster: StudioRoster, changed: @escaping @Sendable ([StudioRack]) -> Void,
             daemon: @escaping @Sendable (Bool) -> Void) {
            self.roster = Mutex(roster)
            self.changed = changed
            self.daemon = daemon
        }

        /// One event of the C side, on Avahi's thread: announcements are resolved as places
        /// free, resolved racks go to the roster.
        func handle(_ kind: Int32, _ service: UnsafePointer<rack_avahi_service>?, browser: OpaquePointer?) {
            switch kind {
            case Int32(RACK_AVAHI_DAEMON_RUNNING):
                daemon(true)
                return
            case Int32(RACK_AVAHI_ALL_LOST):
                daemon(false)
                resolves.withLock { $0.reset() }
            case Int32(RACK_AVAHI_ANNOUNCED):
                guard let s = service?.pointee, let a = Announcement(s) else { return }
                if let now = resolves.withLock({ $0.announced(a.key, a) }) { resolve(now, browser) }
                return
            case Int32(RACK_AVAHI_RESOLVE_ENDED):
                guard let s = service?.pointee, let name = s.name.map({ String(cString: $0) }) else { return }
                let key = ResolveQueue<Announcement>.Key(interface: Int(s.interface), name: name)
                if let next = resolves.withLock({ $0.ended(key) }) { resolve(next, browser) }
                return
            case Int32(RACK_AVAHI_LOST):
                if let s = service?.pointee, let name = s.name.map({ String(cString: $0) }) {
                    resolves.withLock { $0.withdrawn(.init(interface: Int(s.interface), name: name)) }
                }
            default: break
            }
            if let event = StudioBrowser.event(kind, service) { apply(event) }
        }

        /// Starts resolving `a`; one that cannot start frees its place for the next.
        private func resolve(_ a: Announcement, _ browser: OpaquePointer?) {
            var next: Announcement? = a
            while let a = next {
                let started = a.name.withCString { name in
                    a.type.withCString { type in
                        a.domain.withCString { domain in
                            var s = rack_avahi_service()
                            s.interface = a.interface
                            s.`protocol` = a.proto
                            s.name = name
                            s.type = type
                            s.domain = domain
                            return rack_avahi_browse_resolve(browser, &s) == 0
                        }
                    }
                }
                next = started ? nil : resolves.withLock { $0.ended(a.key) }
            }
        }

        /// Applies `event`; reports the list when what it shows changed.
        func apply(_ event: StudioRoster.Event) {
            let after = roster.withLock { r -> [StudioRack]? in
                let before = r.racks
                r.apply(event)
                let now = r.racks
                return now == before ? nil : now
            }
            if let after { changed(after) }
        }

        func rename(_ name: String) {
            let now = roster.withLock { r -> [StudioRack] in
                r.ownName = name
                return r.racks
            }
            changed(now)
        }
    }

    private let handle: Mutex<OpaquePointer?>
    private let sink: Unmanaged<Sink>

    /// Starts browsing; `ownName` is the name rack advertises itself under (left out of the
    /// list); `daemon` is told whether the Avahi daemon answers (false until it does: without
    /// one, discovery cannot work). Nil when Avahi's thread cannot be started.
    public init?(ownName: String?, capacity: Int = StudioRoster.defaultCapacity,
                 changed: @escaping @Sendable ([StudioRack]) -> Void,
                 daemon: @escaping @Sendable (Bool) -> Void = { _ in }) {
        let sink = Unmanaged.passRetained(Sink(roster: StudioRoster(capacity: capacity, ownName: ownName),
                                               changed: changed, daemon: daemon))
        var error: Int32 = 0
        let started = rack_avahi_browse_start("_oscjson._tcp", StudioRack.pageKey, { context, browser, kind, service in
            guard let context else { return }
            Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue().handle(kind, service, browser: browser)
        }, sink.toOpaque(), &error)
        guard let started else {
            sink.release()
            return nil
        }
        self.handle = Mutex(started)
        self.sink = sink
    }

    /// rack's own service is now advertised under `name` (after a collision, "NAME #2").
    public func setOwnName(_ name: String) { sink.takeUnretainedValue().rename(name) }

    /// The racks listed now.
    public var racks: [StudioRack] { sink.takeUnretainedValue().roster.withLock { $0.racks } }

    /// Stops browsing (no report comes after it returns).
    public func stop() {
        guard let h = handle.withLock({ h -> OpaquePointer? in defer { h = nil }; return h }) else { return }
        rack_avahi_browse_stop(h)
    }

    deinit {
        stop()
        sink.release()
    }

    /// A C event as a roster event; nil for a service that is not a usable rack.
    static func event(_ kind: Int32, _ service: UnsafePointer<rack_avahi_service>?) -> StudioRoster.Event? {
        if kind == Int32(RACK_AVAHI_ALL_LOST) { return .allLost }
        guard let s = service?.pointee, let name = s.name.map({ String(cString: $0) }) else { return nil }
        let interface = Int(s.interface)
        if kind == Int32(RACK_AVAHI_LOST) { return .lost(interface: interface, name: name) }
        guard let host = s.host, let address = s.address,
              let rack = StudioRack(name: name, host: String(cString: host), address: String(cString: address),
                                    port: Int(s.port), pagePath: s.txt_value.map { String(cString: $0) })
        else { return nil }
        return .found(interface: interface, rack: rack, local: s.local != 0)
    }
}

extension StudioBrowser.Announcement {
    /// An announcement of the C side; nil without a name or type.
    init?(_ s: rack_avahi_service) {
        guard let name = s.name, let type = s.type else { return nil }
        self.init(interface: s.interface, proto: s.`protocol`, name: String(cString: name), type: String(cString: type),
                  domain: s.domain.map { String(cString: $0) } ?? "local")
    }

    var key: ResolveQueue<Self>.Key { .init(interface: Int(interface), name: name) }
}
