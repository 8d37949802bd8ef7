/// The address of a parameter, as OSC messages and automation files write it:
/// `/rack/<name>` sets a value in the parameter's units, `/rack/<name>/norm` a 0…1 control
/// position mapped through the parameter's taper (not for `room`, a choice). The one parser
/// of these addresses: OSC and automation both use it.
public struct ParameterAddress: Sendable, Hashable {
    /// The parameter addressed.
    public let id: ParameterID
    /// True for `/rack/<name>/norm`: the value is a 0…1 control position.
    public let isNormalized: Bool

    /// The address of `id`, normalised or not (`room` has no normalised address).
    public init(_ id: ParameterID, normalized: Bool = false) {
        precondition(!normalized || Parameters[id].taper != .choice, "a choice has no /norm address")
        self.id = id
        isNormalized = normalized
    }

    /// Parses `/rack/<name>` or `/rack/<name>/norm`; nil for any other address (another
    /// command, an unknown name, `/norm` of a choice, a trailing slash).
    public init?(parsing address: String) {
        let parts = address.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 4, parts[0] == "", parts[1] == "rack",
              let spec = Parameters.named(String(parts[2])) else { return nil }
        if parts.count == 4 && !(parts[3] == "norm" && spec.taper != .choice) { return nil }
        id = spec.id
        isNormalized = parts.count == 4
    }

    /// Every parameter's addresses in table order: `/rack/<name>`, then `/rack/<name>/norm`
    /// (none for a choice).
    public static var all: [ParameterAddress] {
        Parameters.all.flatMap { spec in
            [ParameterAddress(spec.id)] + (spec.taper == .choice ? [] : [ParameterAddress(spec.id, normalized: true)])
        }
    }

    /// The parameter's row of the table.
    public var spec: ParameterSpec { Parameters[id] }

    /// The address as written: `/rack/<name>` or `/rack/<name>/norm`.
    public var path: String { spec.address + (isNormalized ? "/norm" : "") }
}
