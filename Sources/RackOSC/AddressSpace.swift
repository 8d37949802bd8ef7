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

/// One command of the address space: its declaration (`OSCCommandDeclaration`: address,
/// signature, description…) and the function that applies it, registered once, in the file of
/// the module it belongs to (as scsynth's `SC_MiscCmds.cpp` registers each command once). The
/// signature is checked before the function runs; it throws the reason it refuses a message on
/// other grounds (a value out of range, an unknown name); the controller replies with
/// `/rack/error ADDRESS REASON`.
struct OSCCommand: Sendable {
    typealias Handler = @Sendable (RackController, Request) throws(Reason) -> Void

    let declaration: OSCCommandDeclaration
    let handle: Handler

    init(_ declaration: OSCCommandDeclaration, _ handle: @escaping Handler) {
        self.declaration = declaration
        self.handle = handle
    }

    var address: String { declaration.address }
    var sessionManagerOnly: Bool { declaration.sessionManagerOnly }
}

extension RackController {
    /// Every module's commands. Besides these, `/rack/PARAMETER n|s [n]` and
    /// `/rack/PARAMETER/norm n [n]` set a parameter of the table (`ParameterAddress`,
    /// `setParameter`).
    static let registrations: [OSCCommand] = infoCommands + parameterCommands + syncCommands + presetCommands
        + subscriptionCommands + playerCommands + midiCommands + sessionCommands

    /// The address space: every declared command with its function, in the declarations' order
    /// (a declared command without one, or one registered twice or for no declaration, fails
    /// `AddressSpaceTests`).
    static let commandTable: [OSCCommand] = OSCAddressSpace.commands.compactMap { declaration in
        registrations.first { $0.address == declaration.address }
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
