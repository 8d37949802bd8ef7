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
/// client name without saying so (the real name comes from the server), answers the sample
/// rate before the first cycle with its default (the rate is taken after it), and PipeWire's
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
    var client: OpaquePointer?
    var context: OpaquePointer?
    /// Makes the engine for a sample rate (called on first join and when the rate changed).
    let makeEngine: (Double) -> Engine
    /// Called when the engine was replaced (a server with another rate came back, or the
    /// running server changed its rate). The old engine no longer renders when this is called.
    public var engineReplaced: ((Engine) -> Void)?
    /// The connections rack wants, by short port name: every connection seen made (by
    /// `--connect`, a patchbay, a script) until it is seen undone while both ends exist.
    /// A server restart or a peer that goes away never shrinks it; wanted peers are connected
    /// when their ports appear.
    var wanted: [String: [String]] = [:]
    /// Connections seen at the last look in this join.
    var seen: [String: Set<String>] = [:]
    /// Wanted connections seen undone while both ends exist, since when (a removal counts once
    /// it has lasted a second: a server going down disconnects everything just before it says so).
    var undoneSince: [String: Double] = [:]
    /// Ports (of any client) gone in this join, as counted at the last look at the connections.
    var portsGoneSeen: UInt64 = 0
    /// When a look last found that count changed (control-thread time, s).
    var portsWentAwayAt = -Double.infinity
    /// When the wanted connections were last made, and a join last tried (control-thread time, s).
    var lastConnectAttempt = 0.0
    var lastRejoinAttempt = 0.0
    /// Closes of dead clients still running on their threads: no join is tried meanwhile, so
    /// the control thread never waits on JACK's open/close lock (OSC keeps answering).
    let closing = ClosesInFlight()
    /// When the rejoin began waiting for such a close (control-thread time, s), and whether
    /// that wait was said.
    var closeWaitSince: Double?
    var closeWaitSaid = false
    /// The last refused join that was said (nil: none since the last join).
    var lastRefusal: JoinRefusal?
    /// When the server went away (control-thread time, s; nil while joined), and whether the
    /// long outage was said.
    var outageSince: Double?
    var outageSaid = false
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

    /// Our ports' short names by `rack_jack_port` index (`enum rack_port`, where the names
    /// live); midi_in and midi_out exist unless MIDI is off.
    public static let portNames = (0..<Int(RACK_PORT_COUNT.rawValue)).map {
        String(cString: rack_jack_port_short_name(Int32($0)))
    }
    /// The first of the audio inputs (in_1, in_2) and of the audio outputs (out_1, out_2).
    static let firstInputIndex = Int(RACK_PORT_IN_1.rawValue)
    static let firstOutputIndex = Int(RACK_PORT_OUT_1.rawValue)
    static let midiInIndex = Int(RACK_PORT_MIDI_IN.rawValue)
    /// True for the ports that take input (connections run peer → ours).
    static func isInput(_ index: Int) -> Bool {
        index == firstInputIndex || index == Int(RACK_PORT_IN_2.rawValue) || index == midiInIndex
    }
    /// The MIDI stage the process callback runs (nil: no MIDI ports, `--no-midi`). Set before
    /// the first join; it must outlive the client.
    public let midi: MIDILink?
    /// How often a lost server is looked for.
    static let rejoinInterval = 0.25

    /// The server implementation behind the JACK library rack runs with.
    public let server = Server(libraryVersion: String(cString: rack_jack_library_version()))
    /// Dead clients are abandoned instead of closed where closing is unsafe; the environment
    /// variable RACK_ABANDON_DEAD_CLIENTS=1 forces that path (to test it on a safe version).
    private lazy var abandonsDeadClients = !server.closesDeadClientsSafely
        || ProcessInfo.processInfo.environment["RACK_ABANDON_DEAD_CLIENTS"] == "1"

    /// Joins the running server (never starts one). Throws a 69 error with a hint when there
    /// is none.
    public init(name: String, midi: MIDILink? = nil,
                warn: @escaping (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) },
                makeEngine: @escaping (Double) -> Engine) throws(RackError) {
        self.warn = warn
        self.midi = midi
        // libjack prints its own diagnostics (several lines per failed connection attempt, every
        // second while rejoining); rack reports what matters in one line of its own.
        jack_set_error_function { _ in }
        jack_set_info_function { _ in }
        requestedName = name
        clientName = name
        self.makeEngine = makeEngine
        guard join() else { throw RackError(.unavailable, Self.noServerHint(server)) }
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

    /// Joins: opens the client, registers the ports, activates with the process callback held
    /// (silent, engine untouched), learns the rate the server actually runs it at, then makes
    /// (or keeps) the engine for that rate and lets the callback render it.
    @discardableResult
    private func join() -> Bool {
        var status = jack_status_t(rawValue: 0)
        guard let c = rack_jack_client_open(requestedName, JackNoStartServer, &status, nil) else {
            noteRefusal(.status(status.rawValue))
            return false
        }
        guard let ctx = rack_jack_create(c, nil, jackRender, 0, 0) else {
            jack_client_close(c)
            noteRefusal(.ports)
            return false
        }
        rack_jack_hold(ctx)   // until the engine for the running rate is in place
        let announced = jack_get_sample_rate(c)
        if let midi, rack_jack_enable_midi(ctx, UnsafeMutableRawPointer(midi.router), jackMIDI) == 0 {
            warn("cannot register the MIDI ports midi_in and midi_out; running without MIDI")
        }
        client = c
        context = ctx
        guard jack_activate(c) == 0 else {
            leave()
            noteRefusal(.activation)
            return false
        }
        lastRefusal = nil
        let rate = runningRate(c, ctx, announced: announced)
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
        rack_jack_replace_engine(ctx, UnsafeMutableRawPointer(e.core), UInt32(e.maxFrames), e.sampleTime)
        sampleRate = rate
        if servable {
            unsupportedRate = nil
            rack_jack_release(ctx)
        } else {
            reportUnsupported(rate)
        }
        clientName = realClientName() ?? String(cString: jack_get_client_name(c))
        seen = [:]
        undoneSince = [:]
        portsGoneSeen = 0
        portsWentAwayAt = -.infinity
        // Pretty names for patchbays that show JACK metadata, carrying the client's real name
        // ("fx input L"); not fatal if the server lacks metadata.
        _ = rack_jack_set_pretty_names(ctx, clientName)
        return true
    }

    /// How long a join waits for the server to run the newly activated client once.
    static let firstCycleTimeout = 2.0

    /// The rate the server runs the activated client at. PipeWire's JACK library answers
    /// `jack_get_sample_rate` before the first cycle with its configured default, not the
    /// driver's rate (a busy graph left at 44.1 kHz after `clock.force-rate` is unset still
    /// says 48000); once the (held) process callback has run, the library knows the
    /// driver's rate, and the sample-rate callback may have said it. jackd2 answers the same
    /// before and after.
    private func runningRate(_ c: OpaquePointer, _ ctx: OpaquePointer, announced: UInt32) -> Double {
        let deadline = Date().addingTimeInterval(Self.firstCycleTimeout)
        while rack_jack_is_held(ctx) == 0 && rack_jack_is_shut_down(ctx) == 0 && Date() < deadline {
            usleep(1_000)
        }
        // What the callback says wins; else the library's answer now, which then stands in
        // for the callback's (followSampleRate compares the engine against it).
        return Double(rack_jack_settle_sample_rate(ctx, announced, jack_get_sample_rate(c)))
    }

    private func realClientName() -> String? {
        guard let context else { return nil }
        var buf = [CChar](repeating: 0, count: 320)
        guard rack_jack_real_client_name(context, &buf, buf.count) != 0 else { return nil }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
            let dead = DeadClient(client: client, context: context, log: log, closing: closing,
                                  awaitsNoticeThreads: !server.isPipeWire)
            closing.begin()
            Thread.detachNewThread { Self.closeDead(dead) }
        }
    }

    /// Stops for good.
    public func close() { leave() }

    /// Control-thread housekeeping: notices a vanished server, rejoins when one comes back,
    /// follows the server's sample rate, keeps the wanted connections. Call it when JACK's
    /// notifications wake the control thread (`rack_wake_install`) and by `nextDeadline`.
    public func poll(now: Double) {
        if let context, rack_jack_is_shut_down(context) != 0 {
            log("JACK server went away; OSC keeps answering, rejoining when it is back")
            leave()
            lastRejoinAttempt = now
            (outageSince, outageSaid) = (now, false)
            return
        }
        if client == nil {
            rejoin(now: now)
            return
        }
        followSampleRate()
        // Look first, then connect: a link the server dropped since the last look (its peer
        // made again) is known as missing, not as made, when the wanted ones are connected.
        // A port gone since the last look is looked at too: a peer's port made again under its
        // name took its links along without anyone undoing them (`rememberConnections`).
        let changed = context.map { rack_jack_take_connections_changed($0) != 0 } ?? false
        let portsGone = context.map { rack_jack_ports_unregistered($0) != portsGoneSeen } ?? false
        if changed || portsGone || undoneDecisionDue(now: now) {
            rememberConnections(now: now)
        }
        let registered = context.map { rack_jack_take_ports_registered($0) != 0 } ?? false
        if registered || (now - lastConnectAttempt >= Self.connectRetrySeconds && hasMissingWanted) {
            lastConnectAttempt = now
            connectWanted()
        }
    }

    /// While no server is joined: tries a join every `rejoinInterval`, once no dead client is
    /// being closed.
    private func rejoin(now: Double) {
        guard closing.count == 0 else {
            noteCloseWait(now: now)
            return
        }
        closeWaitSince = nil
        guard now - lastRejoinAttempt >= Self.rejoinInterval else { return }
        lastRejoinAttempt = now
        if join() {
            log("rejoined \(server.description) as '\(clientName)' (\(Int(sampleRate)) Hz, \(bufferSize) frames)")
            outageSince = nil
            lastConnectAttempt = now
            connectWanted()
        } else {
            noteLongOutage(now: now)
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

}

/// A client whose server went away, handed to the thread that closes it.
struct DeadClient: @unchecked Sendable {
    let client: OpaquePointer
    let context: OpaquePointer
    /// The driver's `log`, set once before the first join.
    let log: (String) -> Void
    let closing: ClosesInFlight
    /// Whether the close first waits for the threads that said the server went away (jackd2).
    let awaitsNoticeThreads: Bool
}

/// How many dead clients are being closed on their own threads (the control thread reads it).
final class ClosesInFlight: @unchecked Sendable {
    private let lock = NSLock()
    private var running = 0
    var count: Int { lock.lock(); defer { lock.unlock() }; return running }
    func begin() { lock.lock(); running += 1; lock.unlock() }
    func end() { lock.lock(); running -= 1; lock.unlock() }
}
