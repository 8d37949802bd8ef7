import RackEngine
import RackWire
import Synchronization

/// The other racks on the network as the HTTP side shows them: `GET /studio` answers the list
/// as JSON, and a WebSocket that sends `{"COMMAND": "LISTEN", "DATA": "/studio"}` is sent it at
/// once and again on every change, as a text frame `{"COMMAND": "RACKS", "DATA": LIST}`. The
/// list comes from rack's DNS-SD browser (any thread); publishing never blocks (each listener's
/// queue keeps its newest pushes).
///
/// LIST: `{"browsing": true, "daemon": true, "capacity": 64, "racks": [{"name", "host",
/// "address", "port", "url"}, …]}`; `browsing` is false when rack does not browse
/// (`--no-browse`, or Avahi's thread could not start); `daemon` is false while no Avahi daemon
/// answers (none runs, or the system bus cannot be reached): discovery cannot work then.
public final class StudioDirectory: Sendable {
    /// Where the list is served, and what a WebSocket LISTENs to for it.
    public static let path = "/studio"

    private struct Inner {
        var browsing = false
        /// Whether the Avahi daemon answers (browsing without one finds nothing, ever).
        var daemon = false
        var capacity = StudioRoster.defaultCapacity
        var racks: [StudioRack] = []
        var listeners: [Int: AsyncStream<Outgoing>.Continuation] = [:]
    }

    private let inner = Mutex(Inner())

    public init() {}

    /// Browsing runs (or not), with a list of at most `capacity` racks.
    public func setBrowsing(_ on: Bool, capacity: Int = StudioRoster.defaultCapacity) {
        push { $0.browsing = on; $0.capacity = capacity }
    }

    /// The Avahi daemon answers (or not, or no more), pushed to every listener.
    public func setDaemon(running: Bool) {
        push { $0.daemon = running }
    }

    /// The list of racks now, pushed to every listener.
    public func publish(_ racks: [StudioRack]) {
        push { $0.racks = racks }
    }

    private func push(_ change: (inout Inner) -> Void) {
        let (text, queues) = inner.withLock { s -> (String, [AsyncStream<Outgoing>.Continuation]) in
            change(&s)
            return (Self.pushText(Self.json(s)), Array(s.listeners.values))
        }
        for q in queues { q.yield(.text(text)) }
    }

    /// The list as `GET /studio` answers it.
    var json: JSON { inner.withLock { Self.json($0) } }

    /// Connection `id` listens (pushed the list at once) or stops listening.
    func setListening(_ id: Int, queue: AsyncStream<Outgoing>.Continuation, _ on: Bool) {
        let text = inner.withLock { s -> String? in
            s.listeners[id] = on ? queue : nil
            return on ? Self.pushText(Self.json(s)) : nil
        }
        if let text { queue.yield(.text(text)) }
    }

    func removeListener(_ id: Int) {
        _ = inner.withLock { $0.listeners.removeValue(forKey: id) }
    }

    private static func json(_ s: Inner) -> JSON {
        .object([
            ("browsing", .bool(s.browsing)),
            ("daemon", .bool(s.daemon)),
            ("capacity", .number(Double(s.capacity))),
            ("racks", .array(s.racks.map { r in
                .object([("name", .string(r.name)), ("host", .string(r.host)), ("address", .string(r.address)),
                         ("port", .number(Double(r.httpPort))), ("url", .string(r.pageURL))])
            })),
        ])
    }

    private static func pushText(_ list: JSON) -> String {
        JSON.object([("COMMAND", .string("RACKS")), ("DATA", list)]).text
    }
}
