import RackEngine

/// What `run()` needs of a parameter's row to read its control port: plain numbers copied out
/// of the parameter table at instantiation, so the realtime path touches no array.
struct ControlLimits {
    /// The table's range and default, in parameter units.
    var minimum: Double, maximum: Double, defaultValue: Double
    /// True for a choice (`room`): the port's value is rounded to an index.
    var isChoice: Bool

    init(_ spec: ParameterSpec) {
        minimum = spec.minimum
        maximum = spec.maximum
        defaultValue = spec.defaultValue
        isChoice = spec.taper == .choice
    }

    /// A port value as the parameter takes it: clamped to the range (a choice rounded to an
    /// index); nil for NaN, which leaves the parameter where it is.
    /// - Realtime: safe
    @_noLocks
    func accept(_ portValue: Float) -> Double? {
        let v = Double(portValue)
        if v.isNaN { return nil }
        let clamped = v < minimum ? minimum : (v > maximum ? maximum : v)
        // A choice's index counted from its minimum (never negative) rounds half up, as
        // `ParameterSpec.clamp` does.
        return isChoice ? minimum + Double(Int(clamped - minimum + 0.5)) : clamped
    }
}
