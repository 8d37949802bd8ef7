import RackEngine
import RackWire
import Synchronization

/// One value of an OSC node as the control side reports it.
public enum LiveValue: Sendable, Equatable {
    /// Sent as OSC `f`; kept as a Double so JSON shows the value rack holds, not its float.
    case float(Double)
    case int(Int)
    case string(String)

    var json: JSON {
        switch self {
        case let .float(d): .number(d)
        case let .int(i): .number(Double(i))
        case let .string(s): .string(s)
        }
    }

    /// The value as an OSC argument (what a WebSocket listener is pushed).
    var osc: OSCValue {
        switch self {
        case let .float(d): .float(Float(d))
        case let .int(i): .int(Int32(clamping: i))
        case let .string(s): .string(s)
        }
    }
}

/// What a WebSocket connection is sent: OSC as binary frames, JSON as text.
enum Outgoing: Sendable {
    case binary([UInt8])
    case text(String)
}

/// The values the HTTP side shows, and who listens to them. The control thread publishes every
/// change here (from any source: UDP, WebSocket, automation, presets, the session manager); HTTP
/// requests read it, and WebSocket listeners get each change pushed. Publishing never blocks:
/// the lock is held only to copy, and each listener's queue drops its oldest pushes when the
/// client reads too slowly, so a slow client can never hold up OSC or the control thread.
public final class LiveState: Sendable {
    /// A consistent copy of everything a request may show.
    struct Snapshot: Sendable {
        var values: [String: [LiveValue]]
        var presetNames: [String]
    }

    private struct Listener {
        var paths: Set<String> = []
        let queue: AsyncStream<Outgoing>.Continuation
        /// A WebSocket connection (not one of the page's picture workers): its listening makes
        /// the control side publish the periodic values (`isListened`).
        let isConnection: Bool
    }

    private struct Inner {
        var snapshot: Snapshot
        var listeners: [Int: Listener] = [:]
        var nextID = 1
    }

    private let inner: Mutex<Inner>
    /// The other racks on the network (`GET /studio`, and pushed to WebSockets that listen).
    public let studio = StudioDirectory()

    /// Called on the HTTP side when a connection starts listening to a node (the control
    /// thread's wake: it publishes the periodic values only while they are listened to).
    private let listening: @Sendable () -> Void

    /// Starts from the parameter table's defaults; the control side publishes the real values
    /// before the server accepts connections. `listening` is called whenever a connection
    /// starts listening to a node.
    public init(listening: @escaping @Sendable () -> Void = {}) {
        self.listening = listening
        var values: [String: [LiveValue]] = [:]
        for spec in Parameters.all {
            values[spec.address] = [Self.value(spec, spec.defaultValue)]
        }
        values[OSCCommandDeclaration.presetRecall.address] = [.string("")]
        inner = Mutex(Inner(snapshot: Snapshot(values: values, presetNames: [])))
    }

    /// A parameter's value as published: a room by name, numbers as `f`.
    static func value(_ spec: ParameterSpec, _ v: Double) -> LiveValue {
        spec.taper == .choice ? .string(spec.format(v)) : .float(v)
    }

    /// Records the value of the node at `address` and pushes it, as an OSC message, to every
    /// WebSocket client listening to it. A continuous parameter's value also gives its 0…1
    /// control position at `/rack/<param>/norm` (through the table's taper), so a fader can
    /// follow it with no copy of the taper maths.
    public func publish(_ address: String, _ values: [LiveValue]) {
        record(address, values)
        if let normalized = ParameterAddress(parsing: address + "/norm"), case let .float(v)? = values.first {
            record(normalized.path, [.float(normalized.spec.normalized(v))])
        }
    }

    private func record(_ address: String, _ values: [LiveValue]) {
        let queues = inner.withLock { s -> [AsyncStream<Outgoing>.Continuation] in
            s.snapshot.values[address] = values
            return s.listeners.values.filter { $0.paths.contains(address) }.map(\.queue)
        }
        guard !queues.isEmpty else { return }
        let bytes = OSCMessage(address, values.map(\.osc)).encoded()
        for q in queues { q.yield(.binary(bytes)) }
    }

    /// Publishes a parameter's value by its table row.
    public func publish(_ spec: ParameterSpec, value: Double) {
        publish(spec.address, [Self.value(spec, value)])
    }

    /// The preset names, factory first (after a save or delete too): `/rack/preset`'s `VALS`,
    /// and pushed as `/rack/preset/list s…` (the reply's form) to its listeners.
    public func setPresetNames(_ names: [String]) {
        inner.withLock { $0.snapshot.presetNames = names }
        record(OSCCommandDeclaration.presetList.address, names.map(LiveValue.string))
    }

    func snapshot() -> Snapshot { inner.withLock { $0.snapshot } }

    // MARK: - WebSocket listeners

    /// Registers a listener; its pushes go to `queue`. `isConnection`: a WebSocket connection,
    /// not one of the page's picture workers.
    func addListener(_ queue: AsyncStream<Outgoing>.Continuation, isConnection: Bool = true) -> Int {
        inner.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.listeners[id] = Listener(queue: queue, isConnection: isConnection)
            return id
        }
    }

    func removeListener(_ id: Int) {
        _ = inner.withLock { $0.listeners.removeValue(forKey: id) }
    }

    /// LISTEN (`on`) or IGNORE (`!on`) the node at `path` for connection `id`.
    func setListening(_ id: Int, path: String, _ on: Bool) {
        inner.withLock { s in
            if on { s.listeners[id]?.paths.insert(path) } else { s.listeners[id]?.paths.remove(path) }
        }
        if on { listening() }
    }

    /// Whether a WebSocket connection listens to the node at `address` (the control side
    /// publishes `/rack/meter` and `/rack/status` at their rate only then).
    public func isListened(_ address: String) -> Bool {
        inner.withLock { s in s.listeners.values.contains { $0.isConnection && $0.paths.contains(address) } }
    }

    /// How many connections listen (tests).
    var listenerCount: Int { inner.withLock { $0.listeners.count } }
}
