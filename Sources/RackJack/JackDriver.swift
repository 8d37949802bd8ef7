import CJack
import Foundation
import RackDSP
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
/// when one comes back, with the same client name and the port connections it wants. When the
/// server's sample rate changes, the engine is rebuilt at the new rate (same targets; the owner
/// restarts the player from the same second through `engineReplaced`).
///
/// Works with jackd2 and with PipeWire's JACK library alike; the differences it handles:
/// PipeWire 0.3.65 calls only the plain shutdown callback (both are registered), renames a taken
/// client name without saying so (the real name comes from the server), and PipeWire's
/// `jack_client_close` on a client whose server died can free twice (a dead PipeWire client is
/// left alone: a bounded leak per server restart, see `leave()`).
///
/// Not thread-safe: one control thread owns it.
public final class JackDriver: @unchecked Sendable {
    /// The name asked for; JACK may have given another if it was taken (`clientName`).
    public let requestedName: String
    public private(set) var clientName: String
    /// The server's rate (also when the engine cannot serve it: see `unsupportedRate`).
    public private(set) var sampleRate: Double = 0
    public private(set) var engine: Engine?
    private var client: OpaquePointer?
    private var context: OpaquePointer?
    /// Makes the engine for a sample rate (called on first join and when the rate changed).
    private let makeEngine: (Double) -> Engine
    /// Called when the engine was replaced (a server with another rate came back, or the
    /// running server changed its rate). The old engine no longer renders when this is called.
    public var engineReplaced: ((Engine) -> Void)?
    /// The connections rack wants, by short port name: every connection seen made (by
    /// `--connect`, a patchbay, a script) until it is seen undone while both ends exist.
    /// A server restart or a peer that goes away never shrinks it; wanted peers are connected
    /// when their ports appear.
    private var wanted: [String: [String]] = [:]
    /// Connections seen at the last look in this join.
    private var seen: [String: Set<String>] = [:]
    /// Wanted connections seen undone while both ends exist, since when (a removal counts once
    /// it has lasted a second: a server going down disconnects everything just before it says so).
    private var undoneSince: [String: Double] = [:]
    private var lastConnectionPoll = 0.0
    private var lastConnectAttempt = 0.0
    private var lastRejoinAttempt = 0.0
    private var xrunsBefore = 0
    /// The server's rate while it is one the engine cannot serve (output silent meanwhile).
    public private(set) var unsupportedRate: Double?
    /// Dead PipeWire clients deliberately not closed (see `leave()`).
    public private(set) var abandonedClients = 0
    /// Lines for the user (joined, lost, rejoined): the owner prints them.
    public var log: (String) -> Void = { _ in }
    /// Error lines (a rate the engine cannot serve), without the program's name: stderr unless
    /// the owner says otherwise.
    public var warn: (String) -> Void

    public static let portNames = ["in_1", "in_2", "out_1", "out_2"]
    /// How often a lost server is looked for.
    static let rejoinInterval = 0.25

    /// Which JACK implementation the library is: PipeWire's or JACK's own (jackd2).
    public enum Server: Sendable, Equatable {
        case pipewire(version: String)
        case jack(version: String)

        /// From `jack_get_version_string()`: "3.0.0.0 (using PipeWire 0.3.65)" or "1.9.21".
        public init(libraryVersion v: String) {
            if let r = v.range(of: "PipeWire ") {
                let rest = v[r.upperBound...]
                self = .pipewire(version: String(rest.prefix { $0 != ")" && $0 != " " }))
            } else {
                self = .jack(version: v)
            }
        }

        public var isPipeWire: Bool { if case .pipewire = self { return true } else { return false } }

        /// Whether `jack_client_close` is safe on a client whose server died. PipeWire 1.4.9 and
        /// 1.6.8 free a connected port's buffers twice there (reported in issue 12); 0.3.65
        /// closes such a client cleanly (tested: connected port, running callback, glibc's
        /// heap checks on). PipeWire 1.0 and later are taken to be affected.
        public var closesDeadClientsSafely: Bool {
            guard case .pipewire(let v) = self else { return true }
            let major = Int(v.prefix { $0.isNumber }) ?? 1
            return major < 1
        }

        /// "PipeWire 0.3.65" or "JACK 1.9.21".
        public var description: String {
            switch self {
            case .pipewire(let v): return "PipeWire \(v)"
            case .jack(let v): return "JACK \(v)"
            }
        }
    }

    /// The server implementation behind the JACK library rack runs with.
    public let server = Server(libraryVersion: String(cString: rack_jack_library_version()))
    /// Dead clients are abandoned instead of closed where closing is unsafe; the environment
    /// variable RACK_ABANDON_DEAD_CLIENTS=1 forces that path (to test it on a safe version).
    private lazy var abandonsDeadClients = !server.closesDeadClientsSafely
        || ProcessInfo.processInfo.environment["RACK_ABANDON_DEAD_CLIENTS"] == "1"

    /// Joins the running server (never starts one). Throws a 69 error with a hint when there
    /// is none.
    public init(name: String, warn: @escaping (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) },
                makeEngine: @escaping (Double) -> Engine) throws(RackError) {
        self.warn = warn
        // libjack prints its own diagnostics (several lines per failed connection attempt, every
        // second while rejoining); rack reports what matters in one line of its own.
        jack_set_error_function { _ in }
        jack_set_info_function { _ in }
        requestedName = name
        clientName = name
        self.makeEngine = makeEngine
        guard join() else { throw RackError(.unavailable, Self.noServerHint(server)) }
    }

    /// The one line `rack run` prints when no server answers.
    static func noServerHint(_ server: Server) -> String {
        let env = ProcessInfo.processInfo.environment
        if server.isPipeWire {
            let remote = env["PIPEWIRE_REMOTE"].map { "'\($0)'" } ?? "(pipewire-0)"
            return "no PipeWire server \(remote) is running (rack uses PipeWire's JACK library); start it, e.g. `systemctl --user start pipewire wireplumber`, or run rack with jackd's library"
        }
        let name = env["JACK_DEFAULT_SERVER"].map { "'\($0)'" } ?? "(default)"
        return "no JACK server \(name) is running; start one, e.g. `jackd -d alsa` or `jackd --no-realtime -d dummy -r 48000 -p 256 &`, or under PipeWire run `pw-jack rack run` (or put pipewire-jack's libjack first: LD_LIBRARY_PATH=/usr/lib/$(uname -m)-linux-gnu/pipewire-0.3/jack)"
    }

    deinit { leave() }

    /// True while joined to a running server.
    public var isRunning: Bool { client != nil && !(context.map { rack_jack_is_shut_down($0) != 0 } ?? true) }

    /// "running", "disconnected", or "unsupported-rate" while the server runs at a rate the
    /// engine cannot serve (output silent, OSC answering; `sampleRate` is the server's).
    public var stateName: String {
        guard isRunning else { return "disconnected" }
        return unsupportedRate == nil ? "running" : "unsupported-rate"
    }

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
        // A rate the engine cannot serve: keep (or make) an engine at a rate it can, and hold
        // it silent until the server's rate is one it serves.
        let servable = SampleRates.supported.contains(rate)
        let engineRate = servable ? rate : (engine?.sampleRate ?? 48_000)
        if engine == nil || engine!.sampleRate != engineRate {
            let e = makeEngine(engineRate)
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
        if !servable { rack_jack_hold(ctx); reportUnsupported(rate) } else { unsupportedRate = nil }
        guard jack_activate(c) == 0 else {
            leave()
            return false
        }
        clientName = realClientName() ?? String(cString: jack_get_client_name(c))
        seen = [:]
        undoneSince = [:]
        // Pretty names for patchbays that show JACK metadata; not fatal if the server lacks it.
        _ = rack_jack_set_pretty_names(ctx, "rack effects")
        return true
    }

    private func realClientName() -> String? {
        guard let context else { return nil }
        var buf = [CChar](repeating: 0, count: 320)
        guard rack_jack_real_client_name(context, &buf, buf.count) != 0 else { return nil }
        return String(cString: buf)
    }

    private func reportUnsupported(_ rate: Double) {
        if unsupportedRate != rate {
            warn("the JACK server runs at \(Int(rate)) Hz, which rack cannot serve (\(Int(SampleRates.supported.lowerBound))…\(Int(SampleRates.supported.upperBound)) Hz); output is silent until the rate changes")
        }
        unsupportedRate = rate
    }

    /// Closes the client (after a shutdown, or at the end). After a shutdown notice the server
    /// may be half gone and `jack_client_close` can wait on it for seconds, so a dead jackd2
    /// client is closed on a short-lived thread of its own: the control thread, which answers
    /// OSC, never waits for a dying server. Where closing a dead client is unsafe (PipeWire 1.x:
    /// its close of a client whose server died frees a connected port's buffers twice), the
    /// client and its context are abandoned instead: per server restart one `rack_jack`
    /// context (about 33 KB) plus what PipeWire's library holds for the client (measured on
    /// 0.3.65 with RACK_ABANDON_DEAD_CLIENTS=1: about 0.6 MB resident and two threads).
    private func leave() {
        guard let client, let context else {
            self.client = nil
            self.context = nil
            return
        }
        xrunsBefore += Int(rack_jack_xruns(context))
        self.client = nil
        self.context = nil
        undoneSince = [:]
        seen = [:]
        if rack_jack_is_shut_down(context) == 0 {
            rack_jack_remove_pretty_names(context)
            jack_client_close(client)
            rack_jack_destroy(context)
        } else if abandonsDeadClients {
            rack_jack_hold(context)   // should a callback still run, it leaves the engine alone
            abandonedClients += 1     // deliberately leaked: see above
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
    /// comes back, follows the server's sample rate, keeps the wanted connections.
    public func poll(now: Double) {
        if let context, rack_jack_is_shut_down(context) != 0 {
            log("JACK server went away; OSC keeps answering, rejoining when it is back")
            leave()
            lastRejoinAttempt = now
            return
        }
        if client == nil {
            guard now - lastRejoinAttempt >= Self.rejoinInterval else { return }
            lastRejoinAttempt = now
            if join() {
                log("rejoined \(server.description) as '\(clientName)' (\(Int(sampleRate)) Hz, \(bufferSize) frames)")
                lastConnectAttempt = now
                connectWanted()
            }
            return
        }
        followSampleRate()
        let registered = context.map { rack_jack_take_ports_registered($0) != 0 } ?? false
        if registered || (now - lastConnectAttempt >= 1 && hasMissingWanted) {
            lastConnectAttempt = now
            connectWanted()
        }
        let changed = context.map { rack_jack_take_connections_changed($0) != 0 } ?? false
        if changed || now - lastConnectionPoll >= 0.5 {
            lastConnectionPoll = now
            rememberConnections(now: now)
        }
    }

    /// Follows the rate the sample-rate callback reported: a rate the engine cannot serve holds
    /// the engine (silence, one line on stderr); another servable rate holds it, and once the
    /// process callback has let go of it, replaces it by one at the new rate.
    private func followSampleRate() {
        guard let context, let e = engine else { return }
        let rate = Double(rack_jack_sample_rate(context))
        guard rate > 0 else { return }
        sampleRate = rate
        let holding = rack_jack_holding(context) != 0
        if !SampleRates.supported.contains(rate) {
            if !holding { rack_jack_hold(context) }
            reportUnsupported(rate)
            return
        }
        if rate == e.sampleRate {
            if holding {
                rack_jack_release(context)
                if unsupportedRate != nil { log("the JACK server runs at \(Int(rate)) Hz again; sound resumes") }
                unsupportedRate = nil
            }
            return
        }
        if !holding { rack_jack_hold(context) }
        guard rack_jack_is_held(context) != 0 else { return }   // next poll
        let fresh = makeEngine(rate)
        engine = fresh
        rack_jack_replace_engine(context, UnsafeMutableRawPointer(fresh.core), UInt32(fresh.maxFrames), fresh.sampleTime)
        engineReplaced?(fresh)   // the old engine is not rendering: its streams may go
        rack_jack_release(context)
        unsupportedRate = nil
        log("the JACK server's sample rate changed to \(Int(rate)) Hz; the rack follows")
    }

    private func port(_ i: Int) -> OpaquePointer? { context.flatMap { rack_jack_port($0, Int32(i)) } }

    /// Our own port's full name as our JACK library knows it (what jack_connect takes).
    private func ownName(_ i: Int) -> String {
        if let p = port(i), let n = jack_port_name(p) { return String(cString: n) }
        return clientName + ":" + Self.portNames[i]
    }

    private func currentConnections() -> [String: Set<String>] {
        var now: [String: Set<String>] = [:]
        for (i, name) in Self.portNames.enumerated() {
            guard let p = port(i), let list = jack_port_get_connections(p) else { now[name] = []; continue }
            var peers: Set<String> = []
            var k = 0
            while let s = list[k] { peers.insert(String(cString: s)); k += 1 }
            jack_free(list)
            now[name] = peers
        }
        return now
    }

    private func exists(_ port: String) -> Bool { client.map { jack_port_by_name($0, port) != nil } ?? false }

    private func rememberConnections(now: Double) {
        guard isRunning else { return }
        let current = currentConnections()
        for name in Self.portNames {
            let here = current[name] ?? []
            for peer in here.sorted() { want(name, peer) }
            for peer in wanted[name] ?? [] {
                let key = name + "\t" + peer
                if here.contains(peer) { undoneSince[key] = nil; continue }
                if let since = undoneSince[key] {
                    if !exists(peer) {
                        undoneSince[key] = nil            // the peer went away: wait for it
                    } else if now - since >= 1 {
                        undoneSince[key] = nil            // undone by someone: no longer wanted
                        wanted[name]?.removeAll { $0 == peer }
                    }
                } else if seen[name]?.contains(peer) == true && exists(peer) {
                    undoneSince[key] = now
                }
            }
        }
        seen = current
    }

    private func want(_ name: String, _ peer: String) {
        if !(wanted[name] ?? []).contains(peer) { wanted[name, default: []].append(peer) }
    }

    /// True when a wanted connection is not made (and not being undone).
    private var hasMissingWanted: Bool {
        wanted.contains { name, peers in
            peers.contains { !(seen[name] ?? []).contains($0) && undoneSince[name + "\t" + $0] == nil }
        }
    }

    /// Makes every wanted connection whose peer port exists now, except those seen made in this
    /// join and undone since (someone disconnected them: `rememberConnections` decides).
    private func connectWanted() {
        guard isRunning else { return }
        let current = currentConnections()
        for (i, name) in Self.portNames.enumerated() {
            for peer in wanted[name] ?? [] where !(current[name] ?? []).contains(peer)
                && seen[name]?.contains(peer) != true && undoneSince[name + "\t" + peer] == nil && exists(peer) {
                let ours = ownName(i)
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
        for (i, peer) in playback.prefix(2).enumerated() where jack_connect(client, ownName(2 + i), peer) == 0 {
            made.append("\(clientName):\(Self.portNames[2 + i]) → \(peer)")
            want(Self.portNames[2 + i], peer)
        }
        for (i, peer) in capture.prefix(2).enumerated() where jack_connect(client, peer, ownName(i)) == 0 {
            made.append("\(peer) → \(clientName):\(Self.portNames[i])")
            want(Self.portNames[i], peer)
        }
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
