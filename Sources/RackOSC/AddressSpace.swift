import RackEngine
import RackFiles
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
/// function gets a `CommandContext` and its own module's state (`CommandModules`), never the
/// controller. The signature is checked before the function runs; it throws the reason it
/// refuses a message on other grounds (a value out of range, an unknown name); the controller
/// replies with `/rack/error ADDRESS REASON`.
struct OSCCommand: Sendable {
    typealias Handler = @Sendable (CommandModules, CommandContext, Request) throws(Reason) -> Void

    let declaration: OSCCommandDeclaration
    let handle: Handler

    /// `declaration`, applied by `handle` with the state of the module at `module`.
    init<State>(_ declaration: OSCCommandDeclaration, in module: KeyPath<CommandModules, State> & Sendable,
                _ handle: @escaping @Sendable (State, CommandContext, Request) throws(Reason) -> Void) {
        self.declaration = declaration
        self.handle = { modules, context, request throws(Reason) in try handle(modules[keyPath: module], context, request) }
    }

    /// `declaration`, applied by `handle` with the context alone (a module without state of its own).
    init(_ declaration: OSCCommandDeclaration, _ handle: @escaping @Sendable (CommandContext, Request) throws(Reason) -> Void) {
        self.declaration = declaration
        self.handle = { _, context, request throws(Reason) in try handle(context, request) }
    }

    var address: String { declaration.address }
    var sessionManagerOnly: Bool { declaration.sessionManagerOnly }
}

/// The state of each command module, handed to its handlers (each takes its own, by key path).
struct CommandModules {
    let presets: PresetStore
    let player: PlayerSide
    let subscriptions: Feedback
    /// Nil with `--no-midi`.
    let midi: MIDIControl?
    let session: SessionModule
    /// What the queries about the rack read: the driver and the player.
    let info: RackReadings
    /// `/sync` and `/rack/schedule/clear` keep their waiting syncs and shares in the link.
    let sync: EngineLink
}

/// What the session manager's save reads: the session and the player.
struct SessionModule {
    let side: SessionSide
    let player: PlayerSide
}

/// What `/rack/status` and `/rack/stats` read besides the engine: the driver and the player.
struct RackReadings {
    let host: RackHost
    let player: PlayerSide
}

extension RackController {
    /// Every module's commands. Besides these, `/rack/PARAMETER n|s [n]` and
    /// `/rack/PARAMETER/norm n [n]` set a parameter of the table (`ParameterAddress`,
    /// `ParameterCommands.set`).
    static let registrations: [OSCCommand] = InfoCommands.all + ParameterCommands.all + SyncCommands.all
        + PresetCommands.all + SubscriptionCommands.all + PlayerCommands.all + MIDICommands.all + SessionCommands.all

    /// The address space: every declared command with its function, in the declarations' order
    /// (a declared command without one, or one registered twice or for no declaration, fails
    /// `AddressSpaceTests`).
    static let commandTable: [OSCCommand] = OSCAddressSpace.commands.compactMap { declaration in
        registrations.first { $0.address == declaration.address }
    }

    /// `commandTable` by address.
    static let commands = [String: OSCCommand](uniqueKeysWithValues: commandTable.map { ($0.address, $0) })

    /// What a handler may do (`CommandContext`).
    var context: CommandContext { CommandContext(link: link, replies: replies) }

    /// The state of each module, for its handlers.
    var modules: CommandModules {
        CommandModules(presets: presets, player: playback, subscriptions: feedback, midi: midi, session: SessionModule(side: session, player: playback),
                       info: RackReadings(host: link.host, player: playback), sync: link)
    }
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
