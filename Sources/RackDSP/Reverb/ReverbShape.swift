/// The reverb's shaping controls: the values of one control segment, as the engine evaluates
/// them (`Reverb.setShape(_:)`). Each room has its own values (`Room.shape`); a room at its own
/// values sounds exactly as the room's design.
public struct ReverbShape: Sendable, Equatable {
    /// Broadband RT60 of the late reverb (s, `decayRange`), at any `dampingHz`: the loops'
    /// absorption is recomputed for it (Jot & Chaigne), scaled by the room's calibration (its
    /// mid-band T60 over its broadband T60 at its own damping), its decay correction (how that
    /// ratio moves with the decay, `RoomDefinition.decayCorrectionTable`) and its damping
    /// correction (how it moves with the damping, `RoomDefinition.dampingCorrectionTable`).
    /// Below the decay its own loops can carry a
    /// large room runs a smaller network, its short form (`ReverbShortForm.swift`): every room
    /// reaches 0.2 s.
    public var decaySeconds: Double
    /// Time (s, `predelayRange`) from the dry sound to the reverb's first energy, added to
    /// the room's own early pattern.
    public var predelaySeconds: Double
    /// Above this frequency (Hz, `dampingRange`) the decay time falls: at twice it the RT60 is
    /// half the mid-band RT60 (the mid band's follows, so the broadband RT60 stays `decaySeconds`).
    /// `dampingRange.upperBound` (20 kHz) switches the damping off.
    public var dampingHz: Double
    /// High-pass corner (Hz, −3 dB, `lowcutRange`) on the wet output; the bottom of the range
    /// switches it off.
    public var lowcutHz: Double
    /// Low-pass corner (Hz, −3 dB, `highcutRange`) on the wet output; the top of the range
    /// switches it off.
    public var highcutHz: Double
    /// Stereo width of the wet output (`widthRange`): 0 mono, 1 as the room makes it, above 1
    /// wider (the side signal scaled, mid/side).
    public var width: Double
    /// Holds the tail (a lossless loop) and stops feeding it (the input fades out over
    /// `ReverbShape.freezeFadeSeconds`); off resumes the set decay and fades the input back in.
    public var freeze: Bool

    /// The ranges of the controls (the parameter table's).
    public static var decayRange: ClosedRange<Double> { @inline(__always) @_noLocks get { 0.1...30.0 } }
    public static var predelayRange: ClosedRange<Double> { @inline(__always) @_noLocks get { 0.0...0.25 } }
    public static var dampingRange: ClosedRange<Double> { @inline(__always) @_noLocks get { 500.0...20_000.0 } }
    public static var lowcutRange: ClosedRange<Double> { @inline(__always) @_noLocks get { 10.0...1_000.0 } }
    public static var highcutRange: ClosedRange<Double> { @inline(__always) @_noLocks get { 1_000.0...20_000.0 } }
    public static var widthRange: ClosedRange<Double> { @inline(__always) @_noLocks get { 0.0...1.5 } }
    /// Length (s) of the input's fade when `freeze` changes: 20 ms, the engine's default ramp.
    public static var freezeFadeSeconds: Double { @inline(__always) @_noLocks get { 0.02 } }

    @_noLocks
    public init(decaySeconds: Double, predelaySeconds: Double = predelayRange.lowerBound, dampingHz: Double, lowcutHz: Double = lowcutRange.lowerBound,
                highcutHz: Double = highcutRange.upperBound, width: Double = 1, freeze: Bool = false) {
        self.decaySeconds = decaySeconds
        self.predelaySeconds = predelaySeconds
        self.dampingHz = dampingHz
        self.lowcutHz = lowcutHz
        self.highcutHz = highcutHz
        self.width = width
        self.freeze = freeze
    }

    /// Every value clamped into its range (what the kernel runs).
    public var clamped: ReverbShape {
        @_noLocks get {
        ReverbShape(decaySeconds: Self.clamp(decaySeconds, Self.decayRange),
                    predelaySeconds: Self.clamp(predelaySeconds, Self.predelayRange),
                    dampingHz: Self.clamp(dampingHz, Self.dampingRange),
                    lowcutHz: Self.clamp(lowcutHz, Self.lowcutRange),
                    highcutHz: Self.clamp(highcutHz, Self.highcutRange),
                    width: Self.clamp(width, Self.widthRange), freeze: freeze)
        }
    }

    @_noLocks @inline(__always)
    static func clamp(_ x: Double, _ range: ClosedRange<Double>) -> Double {
        x < range.lowerBound ? range.lowerBound : (x > range.upperBound ? range.upperBound : x)
    }
}

extension Room {
    /// This room's own values of the shaping controls (its row of `RoomDefinition.table`).
    public var shape: ReverbShape {
        ReverbShape(decaySeconds: definition.targetDecaySeconds, dampingHz: definition.dampingHz)
    }
}
