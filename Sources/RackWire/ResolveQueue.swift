/// Which announced services the studio browser resolves, and when: at most `places` at once (a
/// resolve is a query on the network); announcements beyond that wait, in the order they came,
/// and are resolved as places free, so that every announced rack is eventually seen. At most
/// `maximumWaiting` wait (a hostile network can announce thousands of services): further ones
/// are left out and counted. A withdrawn announcement stops waiting. Pure state: the browser
/// starts what it returns (`StudioBrowser`), and the tests drive it in memory.
public struct ResolveQueue<Service: Sendable>: Sendable {
    /// A service as DNS-SD names it: by interface and name.
    public struct Key: Hashable, Sendable {
        public let interface: Int
        public let name: String
        public init(interface: Int, name: String) {
            self.interface = interface
            self.name = name
        }
    }

    /// Services resolved at once at most.
    public let places: Int
    /// Services waiting at most.
    public let maximumWaiting: Int
    /// Being resolved now.
    public private(set) var resolving: Set<Key> = []
    /// Waiting for a place, oldest first.
    private var waiting: [(key: Key, service: Service)] = []
    /// Announcements left out (the waiting list was full).
    public private(set) var leftOut = 0

    public init(places: Int, maximumWaiting: Int) {
        self.places = places
        self.maximumWaiting = maximumWaiting
    }

    /// Services waiting for a place.
    public var waitingCount: Int { waiting.count }

    /// `service` (`key`) was announced: returned when it is to be resolved now; else it waits
    /// (or is left out, or is already resolving or waiting).
    public mutating func announced(_ key: Key, _ service: Service) -> Service? {
        guard !resolving.contains(key), !waiting.contains(where: { $0.key == key }) else { return nil }
        if resolving.count < places {
            resolving.insert(key)
            return service
        }
        if waiting.count < maximumWaiting {
            waiting.append((key, service))
        } else {
            leftOut += 1
        }
        return nil
    }

    /// The resolve of `key` ended (resolved, failed, or could not start): the next service to
    /// resolve, if one waits. An end of a resolve not started since the last `reset` frees nothing.
    public mutating func ended(_ key: Key) -> Service? {
        guard resolving.remove(key) != nil, !waiting.isEmpty else { return nil }
        let next = waiting.removeFirst()
        resolving.insert(next.key)
        return next.service
    }

    /// `key` was withdrawn: it stops waiting (a resolve under way ends by itself).
    public mutating func withdrawn(_ key: Key) {
        waiting.removeAll { $0.key == key }
    }

    /// The daemon is gone: nothing resolves or waits any more.
    public mutating func reset() {
        resolving.removeAll()
        waiting.removeAll()
        leftOut = 0
    }
}
