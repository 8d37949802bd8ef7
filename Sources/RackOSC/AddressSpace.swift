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

    /// A claim of scheduled slots beyond what `share` grants the sender.
    static func scheduleShare(_ refusal: FairShare.Refusal, _ share: FairShare) -> Reason {
        switch refusal {
        case .full: return scheduleFull(share.capacity)
        case .remoteShareFull:
            return Reason("busy: remote addresses may have at most \(share.remoteShare) timetagged changes waiting together (of \(share.capacity))")
        case .addressShareFull:
            return Reason("busy: this address may have at most \(share.perRemoteAddress) timetagged changes waiting (its share of \(share.capacity))")
        }
    }

    /// A timetag too far ahead.
    static func beyondHorizon(_ seconds: Double) -> Reason {
        Reason("timetag \(formatNumber(seconds)) s ahead is beyond the scheduling horizon of \(formatNumber(ControllerTuning.scheduleHorizonSeconds)) s")
    }

    static let cannotSchedule = Reason("the JACK server is not running: a timetagged change cannot be scheduled")

    static let presetWritesPerPacket = Reason("busy: one preset save or delete per packet")

    static let mediaListings = Reason("busy: \(ControllerTuning.mediaListingsPerPacket) media listing per packet, "
                                      + "\(ControllerTuning.mediaListingsPerSecond) a second")

    static let sessionSaves = Reason("busy: \(ControllerTuning.sessionSavesPerPacket) session save per packet, "
                                     + "\(ControllerTuning.sessionSavesPerSecond) a second")
}

/// One message being handled: what came, when it is to apply, and who sent it.
struct Request {
    let message: OSCMessage
    let timeTag: OSCTimeTag
    let from: OSCEndpoint
    var address: String { message.address }
    var arguments: [OSCValue] { message.arguments }
}

/// One command of the address space: its declaration (`OSCAddressSpace`: address, signature,
/// description…) and the function that applies it. The signature is checked before the
/// function runs; it throws the reason it refuses a message on other grounds (a value out of
/// range, an unknown name); the controller replies with `/rack/error ADDRESS REASON`.
struct OSCCommand: Sendable {
    typealias Handler = @Sendable (RackController, Request) throws(Reason) -> Void

    let declaration: OSCCommandDeclaration
    let handle: Handler

    var address: String { declaration.address }
    var sessionManagerOnly: Bool { declaration.sessionManagerOnly }
}

extension RackController {
    /// The function of each declared command, one per command (as scsynth's `SC_MiscCmds.cpp`
    /// registers them). Besides these, `/rack/PARAMETER n|s [n]` and `/rack/PARAMETER/norm n [n]`
    /// set a parameter of the table (`ParameterAddress`, `setParameter`).
    static let handlers: [String: OSCCommand.Handler] = [
        "/ping": { c, r in c.ping(r) },
        "/sync": { c, r throws(Reason) in try c.sync(r) },
        "/rack/schedule/clear": { c, r throws(Reason) in try c.clearSchedule(r) },
        "/rack/version": { c, r in c.version(r) },
        "/rack/status": { c, r in c.status(r) },
        "/rack/stats": { c, r in c.stats(r) },
        "/rack/params": { c, r in c.params(r) },
        "/rack/get": { c, r throws(Reason) in try c.get(r) },
        "/rack/dump": { c, r in c.dump(r) },

        "/rack/preset": { c, r throws(Reason) in try c.recallPreset(r) },
        "/rack/preset/save": { c, r throws(Reason) in try c.savePreset(r) },
        "/rack/preset/delete": { c, r throws(Reason) in try c.deletePreset(r) },
        "/rack/preset/list": { c, r throws(Reason) in try c.listPresets(r) },

        "/rack/subscribe": { c, r throws(Reason) in try c.subscribe(r) },
        "/rack/unsubscribe": { c, r throws(Reason) in try c.unsubscribe(r) },
        "/rack/meter": { c, r throws(Reason) in try c.subscribeMeters(r) },

        "/rack/player/load": { c, r throws(Reason) in try c.playerLoad(r) },
        "/rack/player/play": { c, r throws(Reason) in try c.playerTransport(r, playing: true) },
        "/rack/player/stop": { c, r throws(Reason) in try c.playerTransport(r, playing: false) },
        "/rack/player/loop": { c, r throws(Reason) in try c.playerLoop(r) },
        "/rack/player/seek": { c, r throws(Reason) in try c.playerSeek(r) },
        "/rack/player/state": { c, r in c.playerState(r) },
        "/rack/player/media": { c, r throws(Reason) in try c.listMedia(r) },

        "/rack/midi/learn": { c, r throws(Reason) in try c.midiLearn(r) },
        "/rack/midi/map": { c, r throws(Reason) in try c.midiMap(r) },
        "/rack/midi/unmap": { c, r throws(Reason) in try c.midiUnmap(r) },

        "/nsm/client/save": { c, r in c.sessionSave(r) },
        "/nsm/client/open": { _, _ in },
        "/nsm/client/session_is_loaded": { _, _ in },
        "/reply": { _, _ in },
        "/error": { _, _ in },
    ]

    /// The address space: every declared command with its function (a declared command without
    /// one, or a function for no declared command, fails `AddressSpaceTests`).
    static let commandTable: [OSCCommand] = OSCAddressSpace.commands.compactMap { declaration in
        handlers[declaration.address].map { OSCCommand(declaration: declaration, handle: $0) }
    }

    /// `commandTable` by address.
    static let commands = [String: OSCCommand](uniqueKeysWithValues: commandTable.map { ($0.address, $0) })
}

extension OSCValue {
    /// The kind a signature sees (nil for blobs, booleans and the other tags: no slot takes them).
    var argumentKind: OSCArgumentKind? {
        switch self {
        case .string: .string
        case .int, .float, .double, .int64: .number
        default: nil
        }
    }
}
