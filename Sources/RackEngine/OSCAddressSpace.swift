/// rack's OSC commands, each declared once, by name (`OSCCommands.swift`): its address, the
/// arguments it takes (checked before its handler runs, with the reasons a refusal gives), what
/// it does, whether an automation file may say it, whether it only answers, and how OSCQuery
/// shows it. The control side's modules each register a handler for theirs
/// (`RackController.commandTable`), the HTTP side derives OSCQuery's
/// namespace from it and `Automation.parse` the lines it accepts; a test fails when any of
/// them disagree. The parameters are not here: `/rack/PARAMETER` and `/rack/PARAMETER/norm`
/// come from the parameter table (`Parameters.all`, `ParameterAddress`).
public enum OSCAddressSpace {
    /// Every command. The order is OSCQuery's: a published command appears under its parent
    /// in this order (the parameters first under `/rack`).
    public static let commands: [OSCCommandDeclaration] = [
        .presetRecall, .presetSave, .presetDelete, .presetList, .playerLoad, .playerPlay, .playerStop,
        .playerLoop, .playerSeek, .playerState, .playerMedia, .get, .dump, .subscribe, .unsubscribe, .meter,
        .status, .params, .version, .stats, .ping, .sync, .scheduleClear, .midiLearn, .midiMap, .midiUnmap,
        .sessionSave, .sessionOpen, .sessionIsLoaded, .sessionReply, .sessionError,
    ]

    /// The optional port of a subscription.
    static let portSignature = OSCSignature.arguments([.optional(.number, else: "port must be an integer 1…65535")],
                                                      else: "expects an optional integer port")
    /// A ramp time that is not a number.
    static let rampRefusal = "ramp time must be a number of seconds"

    /// `commands` by address.
    public static let byAddress = [String: OSCCommandDeclaration](uniqueKeysWithValues: commands.map { ($0.address, $0) })

    /// Every address anyone may send (the session manager's own aside): each parameter's,
    /// plain and `/norm`, then the commands'. What "did you mean" suggests from.
    public static let userAddresses: [String] = ParameterAddress.all.map { $0.path }
        + commands.filter { !$0.sessionManagerOnly }.map { $0.address }

    /// Every address an automation file may say: each parameter's, then the automatable commands'.
    public static let automatableAddresses: [String] = ParameterAddress.all.map { $0.path }
        + commands.filter { $0.automation != nil }.map { $0.address }

    /// The prefix of every parameter's address (`/rack/<name>`, `Parameters.address`).
    public static let parameterPrefix = "/rack/"
    /// The player's container, also the address its failures are told at
    /// (`/rack/error /rack/player REASON`).
    public static let player = "/rack/player"

    /// The containers of OSCQuery's tree that are no command, with their descriptions.
    public static let containers: [(path: String, description: String)] = [
        ("/", "rack"), ("/rack", "rack: a JACK effects rack"), (player, "the file player"),
        ("/rack/schedule", "timetagged changes waiting for their time"),
    ]
}

/// One command of the address space (see `OSCAddressSpace`).
public struct OSCCommandDeclaration: Sendable {
    /// What an automation file's line at this address does (nil: an automation file may not
    /// say it).
    public enum AutomationRole: Sendable, Equatable { case presetRecall, play, stop, loop, seek }

    public let address: String
    public let signature: OSCSignature
    /// What it does (OSCQuery's `DESCRIPTION`).
    public let summary: String
    public let automation: AutomationRole?
    /// True when it only answers its sender and changes nothing.
    public let isQuery: Bool
    /// Obeyed only from the session manager (NSM); from anyone else it is an unknown address.
    public let sessionManagerOnly: Bool
    /// How OSCQuery shows it; nil: not published there.
    public let query: OSCQueryShape?

    init(_ address: String, _ signature: OSCSignature, _ summary: String, automation: AutomationRole? = nil,
         isQuery: Bool = false, sessionManagerOnly: Bool = false, query: OSCQueryShape? = nil) {
        self.address = address
        self.signature = signature
        self.summary = summary
        self.automation = automation
        self.isQuery = isQuery
        self.sessionManagerOnly = sessionManagerOnly
        self.query = query
    }
}

/// The arguments a command takes.
public enum OSCSignature: Sendable {
    /// Any arguments, ignored.
    case any
    /// No arguments ("takes no arguments" otherwise).
    case none
    /// These, in order (optional ones last); a wrong count is refused with `else`.
    case arguments([OSCArgumentSlot], else: String)

    /// What a wrong number of arguments is told.
    public static let noArgumentsRefusal = "takes no arguments"

    /// The signature in the notation of the docs: `s` a string, `n` a number, `s|n` either,
    /// `[…]` optional, `*` anything, empty for none.
    public var notation: String {
        switch self {
        case .any: "*"
        case .none: ""
        case let .arguments(slots, _): slots.map { $0.isOptional ? "[\($0.kind.notation)]" : $0.kind.notation }.joined(separator: " ")
        }
    }

    /// Why arguments of these kinds (nil for a kind no slot takes: a blob, a boolean…) are
    /// refused, or nil when the signature takes them. Counts first, then each argument in order.
    public func refusal(_ kinds: [OSCArgumentKind?]) -> String? {
        switch self {
        case .any: return nil
        case .none: return kinds.isEmpty ? nil : Self.noArgumentsRefusal
        case let .arguments(slots, countRefusal):
            let required = slots.filter { !$0.isOptional }.count
            guard kinds.count >= required, kinds.count <= slots.count else { return countRefusal }
            for (slot, kind) in zip(slots, kinds) where !slot.accepts(kind) { return slot.refusal ?? countRefusal }
            return nil
        }
    }
}

/// What one argument may be.
public enum OSCArgumentKind: Sendable, Equatable {
    /// `s`.
    case string
    /// `i`, `f`, `d` or `h`.
    case number
    /// Either.
    case stringOrNumber

    var notation: String {
        switch self {
        case .string: "s"
        case .number: "n"
        case .stringOrNumber: "s|n"
        }
    }
}

/// One argument of a signature.
public struct OSCArgumentSlot: Sendable {
    public let kind: OSCArgumentKind
    public let isOptional: Bool
    /// What an argument of the wrong kind is told (nil: the signature's count refusal).
    public let refusal: String?

    public static func required(_ kind: OSCArgumentKind, else refusal: String? = nil) -> OSCArgumentSlot {
        OSCArgumentSlot(kind: kind, isOptional: false, refusal: refusal)
    }

    public static func optional(_ kind: OSCArgumentKind, else refusal: String? = nil) -> OSCArgumentSlot {
        OSCArgumentSlot(kind: kind, isOptional: true, refusal: refusal)
    }

    func accepts(_ given: OSCArgumentKind?) -> Bool {
        guard let given else { return false }
        return kind == .stringOrNumber ? given != .stringOrNumber : given == kind
    }
}

/// How OSCQuery shows a command (the proposal's attributes).
public struct OSCQueryShape: Sendable {
    /// A `RANGE` entry.
    public enum Range: Sendable, Equatable {
        case minimumMaximum(Double, Double)
        case minimum(Double)
        /// `VALS`: the preset names of the moment.
        case presetNames
        /// `VALS`: the parameter table's names.
        case parameterNames
    }

    /// `TYPE`: the type tags a message carries (nil: none).
    public let type: String?
    /// `ACCESS`: 0 no value, 1 a value to read.
    public let access: Int
    public let range: Range?
    public let unit: [String]?
    public let clipMode: [String]?

    init(type: String? = nil, access: Int = 0, range: Range? = nil, unit: [String]? = nil, clipMode: [String]? = nil) {
        self.type = type
        self.access = access
        self.range = range
        self.unit = unit
        self.clipMode = clipMode
    }
}
