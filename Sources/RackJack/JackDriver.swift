import CJack
import Foundation
import RackEngine

/// The process callback's view of the engine: the C trampoline (CJack) gets the port buffers
/// and calls this with the engine's core as context. Nothing here allocates or locks.
/// - Realtime: safe
@_noLocks
func jackRender(_ engine: UnsafeMutableRawPointer?, _ frames: UInt32,
                _ inLeft: UnsafePointer<Float>?, _ inRight: UnsafePointer<Float>?,
                _ outLeft: UnsafeMutablePointer<Float>?, _ outRight: UnsafeMutablePointer<Float>?) -> Int32 {
    guard let engine, let outLeft, let outRight else { return 0 }
    let core = engine.assumingMemoryBound(to: EngineCore.self)
    _ = rackRender(core, frames: Int(frames), inputLeft: inLeft, inputRight: inRight,
                   outputLeft: outLeft, outputRight: outRight)
    return 0
}

/// rack as a JACK client: ports in_1 in_2 out_1 out_2, the engine rendered from the process
/// callback (a C trampoline into `rackRender`), xruns counted. When the server goes away the
/// driver says so, keeps its engine and state, and `poll()` rejoins a server of the same name
/// when one comes back, with the same client name and the port connections it had.
///
/// Not thread-safe: one control thread owns it.
public final class JackDriver: @unchecked Sendable {
    /// The name asked for; JACK may have given another if it was taken (`clientName`).
    public let requestedName: String
    public private(set) var clientName: String
    public private(set) var sampleRate: Double = 0
    public private(set) var engine: Engine?
    private var client: OpaquePointer?
    private var context: OpaquePointer?
    /// Makes the engine for a sample rate (called on first join and when the rate changed).
    private let makeEngine: (Double) -> Engine
    /// Called when the engine was replaced (a server with another rate came back).
    public var engineReplaced: ((Engine) -> Void)?
    /// Connections of our ports when last seen, by short port name (restored on rejoin).
    private var connections: [String: [String]] = [:]
    /// A reading that removed connections, waiting to be confirmed by the next poll: a server
    /// going down disconnects everything just before it says so, and that must not be kept.
    private var unconfirmed: (connections: [String: [String]], since: Double)?
    private var lastConnectionPoll = 0.0
    private var lastRejoinAttempt = 0.0
    private var xrunsBefore = 0
    /// Lines for the user (joined, lost, rejoined): the owner prints them.
    public var log: (String) -> Void = { _ in }

    public static let portNames = ["in_1", "in_2", "out_1", "out_2"]

    /// Joins the running server (never starts one). Throws a 69 error with a hint when there
    /// is none.
    public init(name: String, makeEngine: @escaping (Double) -> Engine) throws(RackError) {
        // libjack prints its own diagnostics (several lines per failed connection attempt, every
        // second while rejoining); rack reports what matters in one line of its own.
        jack_set_error_function { _ in }
        jack_set_info_function { _ in }
        requestedName = name
        clientName = name
        self.makeEngine = makeEngine
        guard join() else {
            let server = ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"].map { "'\($0)'" } ?? "(default)"
            throw RackError(.unavailable, "no JACK server \(server) is running; start one, e.g. `jackd -d alsa` or `jackd --no-realtime -d dummy -r 48000 -p 256 &`")
        }
    }

    deinit { leave() }

    /// True while joined to a running server.
    public var isRunning: Bool { client != nil && !(context.map { rack_jack_is_shut_down($0) != 0 } ?? true) }

    public var stateName: String { isRunning ? "running" : "disconnected" }

    public var bufferSize: Int { context.map { Int(rack_jack_buffer_size($0)) } ?? 0 }

    /// Xruns seen since start (across reconnections).
    public var xruns: Int { xrunsBefore + (context.map { Int(rack_jack_xruns($0)) } ?? 0) }

    public var dspLoadPercent: Double { isRunning ? Double(jack_cpu_load(client)) : 0 }

    public var isFreewheeling: Bool { context.map { rack_jack_is_freewheeling($0) != 0 } ?? false }

    @discardableResult
    private func join() -> Bool {
        var status = jack_status_t(rawValue: 0)
        guard let c = rack_jack_client_open(requestedName, JackNoStartServer, &status, nil) else { return false }
        let rate = Double(jack_get_sample_rate(c))
        if engine == nil || engine!.sampleRate != rate {
            let e = makeEngine(rate)
            let replaced = engine != nil
            engine = e
            if replaced { engineReplaced?(e) }
        }
        let e = engine!
        guard let ctx = rack_jack_create(c, UnsafeMutableRawPointer(e.core), jackRender, UInt32(e.maxFrames), e.sampleTime) else {
            jack_client_close(c)
            return false
        }
        client = c
        context = ctx
        sampleRate = rate
        clientName = String(cString: jack_get_client_name(c))
        guard jack_activate(c) == 0 else {
            leave()
            return false
        }
        // Pretty names for patchbays that show JACK metadata; not fatal if the server lacks it.
        _ = rack_jack_set_pretty_names(ctx, "rack effects")
        return true
    }

    /// Closes the client (after a shutdown, or at the end). After a shutdown notice the server
    /// may be half gone and `jack_client_close` can wait on it for seconds, so a dead client is
    /// closed on a short-lived thread of its own: the control thread, which answers OSC, never
    /// waits for a dying server.
    private func leave() {
        guard let client, let context else {
            self.client = nil
            self.context = nil
            return
        }
        xrunsBefore += Int(rack_jack_xruns(context))
        self.client = nil
        self.context = nil
        if rack_jack_is_shut_down(context) == 0 {
            rack_jack_remove_pretty_names(context)
            jack_client_close(client)
            rack_jack_destroy(context)
        } else {
            let dead = DeadClient(client: client, context: context)
            Thread.detachNewThread {
                jack_client_close(dead.client)
                rack_jack_destroy(dead.context)   // after the close: no callback can touch it now
            }
        }
    }

    /// Stops for good.
    public func close() { leave() }

    /// Control-thread housekeeping, call often: notices a vanished server, rejoins when one
    /// comes back (every second), remembers connections.
    public func poll(now: Double) {
        if let context, rack_jack_is_shut_down(context) != 0 {
            log("JACK server went away; OSC keeps answering, rejoining when it is back")
            leave()
            lastRejoinAttempt = now
            return
        }
        if client == nil {
            guard now - lastRejoinAttempt >= 1 else { return }
            lastRejoinAttempt = now
            if join() {
                log("rejoined JACK server as '\(clientName)' (\(Int(sampleRate)) Hz, \(bufferSize) frames)")
                restoreConnections()
            }
            return
        }
        let changed = context.map { rack_jack_take_connections_changed($0) != 0 } ?? false
        if changed || now - lastConnectionPoll >= 0.5 {
            lastConnectionPoll = now
            rememberConnections(now: now)
        }
    }

    private func port(_ i: Int) -> OpaquePointer? { context.flatMap { rack_jack_port($0, Int32(i)) } }

    private func rememberConnections(now: Double) {
        var seen: [String: [String]] = [:]
        for (i, name) in Self.portNames.enumerated() {
            guard let p = port(i), let list = jack_port_get_connections(p) else { seen[name] = []; continue }
            var peers: [String] = []
            var k = 0
            while let s = list[k] { peers.append(String(cString: s)); k += 1 }
            jack_free(list)
            seen[name] = peers
        }
        // Additions count at once; removals once they have lasted a second (a server going
        // down disconnects everything just before its shutdown notice arrives).
        let onlyAdds = connections.allSatisfy { name, peers in Set(peers).isSubset(of: seen[name] ?? []) }
        if onlyAdds {
            connections = seen
            unconfirmed = nil
        } else if let u = unconfirmed, u.connections == seen {
            if now - u.since >= 1 {
                connections = seen
                unconfirmed = nil
            }
        } else {
            unconfirmed = (seen, now)
        }
    }

    private func restoreConnections() {
        for (i, name) in Self.portNames.enumerated() {
            for peer in connections[name] ?? [] {
                let ours = clientName + ":" + name
                if i < 2 { jack_connect(client, peer, ours) } else { jack_connect(client, ours, peer) }
            }
        }
    }

    /// Connects out_1/out_2 to the first physical playback ports and in_1/in_2 from the
    /// first physical capture ports. Returns a line per connection made.
    @discardableResult
    public func connectPhysical() -> [String] {
        var made: [String] = []
        func physical(_ flags: UInt) -> [String] {
            guard let list = jack_get_ports(client, nil, JACK_DEFAULT_AUDIO_TYPE, flags) else { return [] }
            var names: [String] = []
            var k = 0
            while let s = list[k] { names.append(String(cString: s)); k += 1 }
            jack_free(list)
            return names
        }
        let playback = physical(UInt(JackPortIsPhysical.rawValue | JackPortIsInput.rawValue))
        let capture = physical(UInt(JackPortIsPhysical.rawValue | JackPortIsOutput.rawValue))
        for (i, peer) in playback.prefix(2).enumerated() where jack_connect(client, clientName + ":" + Self.portNames[2 + i], peer) == 0 {
            made.append("\(clientName):\(Self.portNames[2 + i]) → \(peer)")
        }
        for (i, peer) in capture.prefix(2).enumerated() where jack_connect(client, peer, clientName + ":" + Self.portNames[i]) == 0 {
            made.append("\(peer) → \(clientName):\(Self.portNames[i])")
        }
        rememberConnections(now: 0)
        return made
    }

    /// The engine sample at which a moment `secondsFromNow` ahead will be rendered, from the
    /// latest cycle's frame time: JACK's clock maps the wall clock to frames, the trampoline
    /// maps frames to engine samples. Nil when not running (apply as soon as possible).
    public func engineSample(secondsFromNow: Double) -> Int64? {
        guard let context, let client, isRunning else { return nil }
        var cycleFrame: UInt32 = 0
        var engineTime: Int64 = 0
        guard rack_jack_time_mapping(context, &cycleFrame, &engineTime) != 0 else { return nil }
        let targetUsecs = Int64(jack_get_time()) + Int64(secondsFromNow * 1e6)
        guard targetUsecs > 0 else { return nil }
        let targetFrame = jack_time_to_frames(client, jack_time_t(targetUsecs))
        // Frame times wrap at 2^32: the signed difference is what counts.
        let delta = Int64(Int32(bitPattern: targetFrame &- cycleFrame))
        return engineTime + delta
    }

    /// Waits (up to `timeout` seconds) until JACK has run the process callback at least once,
    /// so that "ready" means sound is flowing and timetags can be mapped to samples. A busy
    /// server may take a while to run a newly activated client. Returns false on timeout.
    public func waitForFirstCycle(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let context, rack_jack_cycles(context) > 0 { return true }
            usleep(2_000)
        }
        return context.map { rack_jack_cycles($0) > 0 } ?? false
    }

    /// DSP time per cycle since the last call.
    public func takeCycleStats() -> CycleStats {
        guard let context else { return CycleStats() }
        var all: [UInt32] = []
        var buf = [UInt32](repeating: 0, count: 4096)
        while true {
            let n = Int(rack_jack_take_timings(context, &buf, 4096))
            all += buf.prefix(n)
            if n < 4096 { break }
        }
        guard !all.isEmpty else { return CycleStats() }
        all.sort()
        func us(_ v: UInt32) -> Double { Double(v) / 1000 }
        return CycleStats(cycles: all.count, medianMicroseconds: us(all[all.count / 2]),
                          p99Microseconds: us(all[min(all.count - 1, all.count * 99 / 100)]),
                          maxMicroseconds: us(all.last!))
    }
}

/// A client whose server went away, handed to the thread that closes it.
private struct DeadClient: @unchecked Sendable {
    let client: OpaquePointer
    let context: OpaquePointer
}
