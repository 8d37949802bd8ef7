/// The other racks DNS-SD shows, kept from the browser's events and bounded: a hostile network
/// can announce thousands of services, and the list holds `capacity` at most. Racks found while
/// it is full wait (as many again, in the order they were found) and the first of them is
/// listed when a listed rack goes away; further ones are left out, and `leftOut` counts them
/// until one of the listed goes away.
///
/// A service is seen once per interface it is announced on; the list shows each rack once
/// (by name, address and port), sorted by name. The rack's own service (announced by this
/// machine under `ownName`) is not listed.
public struct StudioRoster: Sendable, Equatable {
    /// What the browser saw.
    public enum Event: Sendable, Equatable {
        /// A rack was resolved on `interface`.
        case found(interface: Int, rack: StudioRack, local: Bool)
        /// The service `name` on `interface` was withdrawn.
        case lost(interface: Int, name: String)
        /// The daemon is gone: nothing seen so far holds.
        case allLost
    }

    /// Racks listed at most: a studio has a handful; a page with more is no use, and the bound
    /// keeps a flood of announcements from growing rack's memory.
    public static let defaultCapacity = 64

    private struct Key: Hashable {
        let interface: Int
        let name: String
    }

    private struct Seen: Equatable {
        let rack: StudioRack
        let local: Bool
    }

    private struct Waiting: Equatable {
        let key: Key
        var seen: Seen
    }

    public let capacity: Int
    /// The name rack itself is advertised under (its services are not listed).
    public var ownName: String?
    private var seen: [Key: Seen] = [:]
    /// Racks found while the list was full, oldest first (at most `capacity`).
    private var waiting: [Waiting] = []
    /// Racks waiting for a place in the list.
    public var waitingCount: Int { waiting.count }
    /// Services found while the list and the waiting racks were full (neither listed nor waiting).
    public private(set) var leftOut = 0

    public init(capacity: Int = Self.defaultCapacity, ownName: String? = nil) {
        self.capacity = capacity
        self.ownName = ownName
    }

    /// Applies an event.
    public mutating func apply(_ event: Event) {
        switch event {
        case let .found(interface, rack, local):
            found(Key(interface: interface, name: rack.name), Seen(rack: rack, local: local))
        case let .lost(interface, name):
            let key = Key(interface: interface, name: name)
            if seen.removeValue(forKey: key) != nil {
                leftOut = 0
                if !waiting.isEmpty {
                    let next = waiting.removeFirst()
                    seen[next.key] = next.seen
                }
            } else {
                waiting.removeAll { $0.key == key }
            }
        case .allLost:
            seen.removeAll()
            waiting.removeAll()
            leftOut = 0
        }
    }

    /// A rack was resolved: listed (or updated), else waiting, else left out.
    private mutating func found(_ key: Key, _ rack: Seen) {
        if seen[key] != nil || seen.count < capacity {
            seen[key] = rack
        } else if let i = waiting.firstIndex(where: { $0.key == key }) {
            waiting[i].seen = rack
        } else if waiting.count < capacity {
            waiting.append(Waiting(key: key, seen: rack))
        } else {
            leftOut += 1
        }
    }

    /// The racks to show: each once, by name, without rack itself.
    public var racks: [StudioRack] {
        let others = seen.values.filter { !($0.local && $0.rack.name == ownName) }.map(\.rack)
        return Array(Set(others)).sorted { ($0.name, $0.address, $0.httpPort) < ($1.name, $1.address, $1.httpPort) }
    }
}
