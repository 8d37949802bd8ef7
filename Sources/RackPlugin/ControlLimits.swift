import RackEngine

/// What the render path needs of a parameter's row to take a value from the host (an LV2
/// control port, a CLAP parameter event): plain numbers copied out of the parameter table at
/// instantiation, so the realtime path touches no array.
public struct ControlLimits {
    /// The table's range and its taper: its clamp is the one clamp (`TaperedRange.clamp`).
    public var range: TaperedRange
    /// The table's default, in parameter units.
    public var defaultValue: Double
    /// The default as rack writes it (`ParameterSpec.rounded`: the LV2 port's `lv2:default`).
    public var writtenDefault: Double

    public init(_ spec: ParameterSpec) {
        range = spec.range
        defaultValue = spec.defaultValue
        writtenDefault = spec.rounded(spec.defaultValue)
    }

    /// True when a host's value is the default: the table's or the one rack writes, at the
    /// precision of an LV2 control port (32-bit float), so that a port a host left at its
    /// `lv2:default` counts (damping's 3529.41… Hz is written 3529).
    /// - Realtime: safe
    @_noLocks
    public func isDefault(_ v: Double) -> Bool {
        Float(v) == Float(defaultValue) || Float(v) == Float(writtenDefault)
    }

    /// A host's value as the parameter takes it: the table's clamp (a choice rounded to an
    /// index, a toggle to off or on); nil for NaN, which leaves the parameter where it is.
    /// - Realtime: safe
    @_noLocks
    public func accept(_ v: Double) -> Double? {
        if v.isNaN { return nil }
        return range.clamp(v)
    }
}
