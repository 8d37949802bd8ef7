import RackEngine

/// What the render path needs of a parameter's row to take a value from the host (an LV2
/// control port, a CLAP parameter event): plain numbers copied out of the parameter table at
/// instantiation, so the realtime path touches no array.
public struct ControlLimits {
    /// The table's range and default, in parameter units.
    public var minimum: Double, maximum: Double, defaultValue: Double
    /// True for a choice (`room`): the port's value is rounded to an index.
    public var isChoice: Bool

    public init(_ spec: ParameterSpec) {
        minimum = spec.minimum
        maximum = spec.maximum
        defaultValue = spec.defaultValue
        isChoice = spec.taper == .choice
    }

    /// A host's value as the parameter takes it: clamped to the range (a choice rounded to an
    /// index); nil for NaN, which leaves the parameter where it is.
    /// - Realtime: safe
    @_noLocks
    public func accept(_ v: Double) -> Double? {
        if v.isNaN { return nil }
        let clamped = v < minimum ? minimum : (v > maximum ? maximum : v)
        // A choice's index counted from its minimum (never negative) rounds half up, as
        // `ParameterSpec.clamp` does.
        return isChoice ? minimum + Double(Int(clamped - minimum + 0.5)) : clamped
    }
}
