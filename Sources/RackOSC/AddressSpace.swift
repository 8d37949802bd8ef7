import RackEngine

/// Why a message was refused (the text of its `/rack/error` reply).
struct Reason: Error {
    let text: String
    init(_ text: String) { self.text = text }

    static let busy = Reason("busy: the render thread's queue is full")
}

/// One message being handled: what came, when it is to apply, and who sent it.
struct Request {
    let message: OSCMessage
    let timeTag: OSCTimeTag
    let from: OSCEndpoint
    var address: String { message.address }
    var arguments: [OSCValue] { message.arguments }
}

/// One command of the address space: its address, the arguments it takes, and the function
/// that applies it (it throws the reason it refuses a message; the controller replies with
/// `/rack/error ADDRESS REASON`).
struct OSCCommand: Sendable {
    let address: String
    /// The arguments as OSC type tags: `[…]` optional, `|` alternatives, `n` any number (i, f,
    /// d or h), `*` anything (ignored).
    let arguments: String
    /// Obeyed only from the session manager (NSM); from anyone else it is an unknown address.
    let sessionManagerOnly: Bool
    let handle: @Sendable (RackController, Request) throws(Reason) -> Void

    init(_ address: String, _ arguments: String, sessionManagerOnly: Bool = false,
         _ handle: @escaping @Sendable (RackController, Request) throws(Reason) -> Void) {
        self.address = address
        self.arguments = arguments
        self.sessionManagerOnly = sessionManagerOnly
        self.handle = handle
    }
}

extension RackController {
    /// The address space, one function per command (as scsynth's `SC_MiscCmds.cpp` registers
    /// them). Besides these, `/rack/PARAMETER n|s [n]` and `/rack/PARAMETER/norm n [n]` set a
    /// parameter of the table (`parameterAddress`, `setParameter`).
    static let commandTable: [OSCCommand] = [
        OSCCommand("/ping", "*") { c, r in c.ping(r) },
        OSCCommand("/rack/version", "*") { c, r in c.version(r) },
        OSCCommand("/rack/status", "") { c, r throws(Reason) in try c.status(r) },
        OSCCommand("/rack/stats", "*") { c, r in c.stats(r) },
        OSCCommand("/rack/params", "*") { c, r in c.params(r) },
        OSCCommand("/rack/get", "s") { c, r throws(Reason) in try c.get(r) },
        OSCCommand("/rack/dump", "*") { c, r in c.dump(r) },

        OSCCommand("/rack/preset", "s|i [n]") { c, r throws(Reason) in try c.recallPreset(r) },
        OSCCommand("/rack/preset/save", "s") { c, r throws(Reason) in try c.savePreset(r) },
        OSCCommand("/rack/preset/delete", "s") { c, r throws(Reason) in try c.deletePreset(r) },
        OSCCommand("/rack/preset/list", "*") { c, r in c.listPresets(r) },

        OSCCommand("/rack/subscribe", "[i]") { c, r throws(Reason) in try c.subscribe(r) },
        OSCCommand("/rack/unsubscribe", "[i]") { c, r throws(Reason) in try c.unsubscribe(r) },
        OSCCommand("/rack/meter", "[i]") { c, r throws(Reason) in try c.subscribeMeters(r) },

        OSCCommand("/rack/player/load", "s") { c, r throws(Reason) in try c.playerLoad(r) },
        OSCCommand("/rack/player/play", "") { c, r throws(Reason) in try c.playerTransport(r, playing: true) },
        OSCCommand("/rack/player/stop", "") { c, r throws(Reason) in try c.playerTransport(r, playing: false) },
        OSCCommand("/rack/player/loop", "n") { c, r throws(Reason) in try c.playerLoop(r) },
        OSCCommand("/rack/player/seek", "n") { c, r throws(Reason) in try c.playerSeek(r) },

        OSCCommand("/nsm/client/save", "*", sessionManagerOnly: true) { c, r in c.sessionSave(r) },
        // Acknowledgements; a second open (a switch) is not a declared capability.
        OSCCommand("/nsm/client/open", "*", sessionManagerOnly: true) { _, _ in },
        OSCCommand("/nsm/client/session_is_loaded", "*", sessionManagerOnly: true) { _, _ in },
        OSCCommand("/reply", "*", sessionManagerOnly: true) { _, _ in },
        OSCCommand("/error", "*", sessionManagerOnly: true) { _, _ in },
    ]

    /// `commandTable` by address.
    static let commands = [String: OSCCommand](uniqueKeysWithValues: commandTable.map { ($0.address, $0) })

    // MARK: - Information

    func ping(_ r: Request) { reply(OSCMessage("/pong"), to: r.from) }

    func version(_ r: Request) { reply(OSCMessage("/rack/version", [.string(Self.namespaceVersion)]), to: r.from) }

    /// `/rack/status i:rate i:period i:xruns f:dsp_load f:player_seconds s:state`.
    func status(_ r: Request) throws(Reason) {
        guard r.arguments.isEmpty else { throw Reason("takes no arguments") }
        reply(OSCMessage("/rack/status", [
            .int(Int32(sampleRate)), .int(Int32(host.bufferSize)), .int(Int32(clamping: host.xruns)),
            .float(Float(host.dspLoadPercent)), .float(Float(playerSeconds)), .string(host.stateName),
        ]), to: r.from)
    }

    /// `/rack/stats i:cycles f:median_us f:p99_us f:max_us f:period_us i:xruns` since the last ask.
    func stats(_ r: Request) {
        let s = host.takeCycleStats()
        let period = Double(host.bufferSize) / sampleRate * 1e6
        reply(OSCMessage("/rack/stats", [
            .int(Int32(clamping: s.cycles)), .float(Float(s.medianMicroseconds)), .float(Float(s.p99Microseconds)),
            .float(Float(s.maxMicroseconds)), .float(Float(period)), .int(Int32(clamping: host.xruns)),
        ]), to: r.from)
    }

    /// One `/rack/params s:name s:unit f:min f:max f:default s:taper` per parameter.
    func params(_ r: Request) {
        for spec in Parameters.all {
            reply(OSCMessage("/rack/params", [
                .string(spec.name), .string(spec.unit), .float(Float(spec.minimum)), .float(Float(spec.maximum)),
                .float(Float(spec.defaultValue)), .string(spec.taper.rawValue),
            ]), to: r.from)
        }
    }

    // MARK: - Subscriptions

    func subscribe(_ r: Request) throws(Reason) {
        try feedback.subscribe(Self.replyTarget(r))
    }

    func unsubscribe(_ r: Request) throws(Reason) {
        feedback.unsubscribe(try Self.replyTarget(r))
    }

    func subscribeMeters(_ r: Request) throws(Reason) {
        try feedback.subscribeMeters(Self.replyTarget(r))
    }

    /// Where a subscription sends to: the sender, on the port given as the optional argument.
    static func replyTarget(_ r: Request) throws(Reason) -> OSCEndpoint {
        var target = r.from
        if r.arguments.count == 1 {
            guard let p = r.arguments[0].number, p >= 1, p <= 65535, p == p.rounded() else {
                throw Reason("port must be an integer 1…65535")
            }
            target.port = UInt16(p)
        } else if !r.arguments.isEmpty {
            throw Reason("expects an optional integer port")
        }
        return target
    }

    // MARK: - Session manager

    /// `/nsm/client/save`: the targets and the player's file and position, in the session.
    func sessionSave(_ r: Request) {
        nsm?.save(SessionState(state: targets, playerPath: playerPath, playerSeconds: playerSeconds), socket: replier)
    }
}
