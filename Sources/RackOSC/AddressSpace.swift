import RackEngine
import RackWire

/// Why a message was refused (the text of its `/rack/error` reply).
struct Reason: Error {
    let text: String
    init(_ text: String) { self.text = text }

    static let busy = Reason("busy: the render thread's queue is full")

    /// Too many timetagged events are waiting for their time.
    static func scheduleFull(_ capacity: Int) -> Reason {
        Reason("busy: \(capacity) timetagged changes are already waiting for their time")
    }

    /// A timetag too far ahead.
    static func beyondHorizon(_ seconds: Double) -> Reason {
        Reason("timetag \(formatNumber(seconds)) s ahead is beyond the scheduling horizon of \(formatNumber(ControllerTuning.scheduleHorizonSeconds)) s")
    }

    static let cannotSchedule = Reason("the JACK server is not running: a timetagged change cannot be scheduled")

    static let presetWritesPerPacket = Reason("busy: one preset save or delete per packet")
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
    /// The arguments it takes, as OSC type tags: `s` a string, `n` a number (i, f, d or h),
    /// `[…]` optional, `|` either; `*`: any (ignored); empty: none.
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
    /// parameter of the table (`ParameterAddress`, `setParameter`).
    static let commandTable: [OSCCommand] = [
        OSCCommand("/ping", "*") { c, r in c.ping(r) },
        OSCCommand("/rack/version", "*") { c, r in c.version(r) },
        OSCCommand("/rack/status", "") { c, r throws(Reason) in try c.status(r) },
        OSCCommand("/rack/stats", "*") { c, r in c.stats(r) },
        OSCCommand("/rack/params", "*") { c, r in c.params(r) },
        OSCCommand("/rack/get", "s") { c, r throws(Reason) in try c.get(r) },
        OSCCommand("/rack/dump", "*") { c, r in c.dump(r) },

        OSCCommand("/rack/preset", "s|n [n]") { c, r throws(Reason) in try c.recallPreset(r) },
        OSCCommand("/rack/preset/save", "s") { c, r throws(Reason) in try c.savePreset(r) },
        OSCCommand("/rack/preset/delete", "s") { c, r throws(Reason) in try c.deletePreset(r) },
        OSCCommand("/rack/preset/list", "*") { c, r in c.listPresets(r) },

        OSCCommand("/rack/subscribe", "[n]") { c, r throws(Reason) in try c.subscribe(r) },
        OSCCommand("/rack/unsubscribe", "[n]") { c, r throws(Reason) in try c.unsubscribe(r) },
        OSCCommand("/rack/meter", "[n]") { c, r throws(Reason) in try c.subscribeMeters(r) },

        OSCCommand("/rack/player/load", "s") { c, r throws(Reason) in try c.playerLoad(r) },
        OSCCommand("/rack/player/play", "") { c, r throws(Reason) in try c.playerTransport(r, playing: true) },
        OSCCommand("/rack/player/stop", "") { c, r throws(Reason) in try c.playerTransport(r, playing: false) },
        OSCCommand("/rack/player/loop", "n") { c, r throws(Reason) in try c.playerLoop(r) },
        OSCCommand("/rack/player/seek", "n") { c, r throws(Reason) in try c.playerSeek(r) },

        OSCCommand("/rack/midi/learn", "[s]") { c, r throws(Reason) in try c.midiLearn(r) },
        OSCCommand("/rack/midi/map", "") { c, r throws(Reason) in try c.midiMap(r) },
        OSCCommand("/rack/midi/unmap", "n") { c, r throws(Reason) in try c.midiUnmap(r) },

        OSCCommand("/nsm/client/save", "*", sessionManagerOnly: true) { c, r in c.sessionSave(r) },
        // Acknowledgements; a second open (a switch) is not a declared capability.
        OSCCommand("/nsm/client/open", "*", sessionManagerOnly: true) { _, _ in },
        OSCCommand("/nsm/client/session_is_loaded", "*", sessionManagerOnly: true) { _, _ in },
        OSCCommand("/reply", "*", sessionManagerOnly: true) { _, _ in },
        OSCCommand("/error", "*", sessionManagerOnly: true) { _, _ in },
    ]

    /// `commandTable` by address.
    static let commands = [String: OSCCommand](uniqueKeysWithValues: commandTable.map { ($0.address, $0) })
}
