/// A shape moving across one control segment: the engine evaluates its ramps at the segment's
/// two ends (`Reverb.setShape(_:gliding:frames:)`), and the reverb follows the straight line
/// between them instead of holding the first until the next segment (a 32-sample staircase,
/// whose steps splattered above 8 kHz: a `width` jump at the default ramp 20.0 dB, a `decay`
/// jump 12.5 dB more than the same change over 200 ms). The loops' absorption and the cuts'
/// coefficients reach the line's value at the end of each 8-sample group, moving sample by
/// sample from where they were; the width takes it at every sample. `freeze` is a toggle and
/// the pre-delay crossfades its own moves: both take the segment's first value.
///
/// - Realtime: safe (plain values).
struct ReverbShapeGlide {
    /// The shape at the segment's start and at its end.
    var from: ReverbShape
    var to: ReverbShape
    /// Length of the line (samples, > 0) and how much of it the groups have passed.
    var frames: Int
    var done = 0

    @_noLocks @inline(__always)
    init(from: ReverbShape, to: ReverbShape, frames: Int) {
        (self.from, self.to, self.frames) = (from, to, frames)
    }

    /// True once a group has started at or after the line's end (it took the end's values).
    var isDone: Bool { @_noLocks @inline(__always) get { done > frames } }

    /// The shape `offset` samples into the line (the end's at and after `frames`).
    @_noLocks @inline(__always)
    func shape(at offset: Int) -> ReverbShape {
        let t = offset >= frames ? 1 : Double(offset) / Double(frames)
        var s = from
        s.decaySeconds = Self.line(from.decaySeconds, to.decaySeconds, t)
        s.dampingHz = Self.line(from.dampingHz, to.dampingHz, t)
        s.lowcutHz = Self.line(from.lowcutHz, to.lowcutHz, t)
        s.highcutHz = Self.line(from.highcutHz, to.highcutHz, t)
        s.width = Self.line(from.width, to.width, t)
        return s
    }

    /// The width at each sample of the group that starts `done` samples into the line.
    @_noLocks @inline(__always)
    func widths() -> SIMD8<Float> {
        let lanes = SIMD8<Double>(0, 1, 2, 3, 4, 5, 6, 7) + Double(done)
        let line = from.width + (to.width - from.width) * (lanes / Double(frames))
        return SIMD8<Float>(line.replacing(with: to.width, where: lanes .>= Double(frames)))
    }

    /// a + (b − a)·t, exactly b at t = 1.
    @_noLocks @inline(__always)
    static func line(_ a: Double, _ b: Double, _ t: Double) -> Double {
        t >= 1 ? b : a + (b - a) * t
    }
}

/// A network's absorption at the start of a group whose coefficients glide (`ReverbShapeGlide`):
/// the group moves its absorbers' and diffusers' coefficients from these, sample by sample, to
/// the ones it has, reaching them at its last sample, so the loops' gains trace the glide's
/// line without 8-sample steps.
struct ReverbAbsorptionGlide {
    var dampedGain: SIMD8<Float>
    var dampedShelf: SIMD8<Float>
    var damping: SIMD8<Float>
    var diffuserAbsorption: SIMD8<Float>

    /// `coefficients`' absorption, as it is now.
    @_noLocks @inline(__always)
    init(_ coefficients: ReverbCoefficients) {
        dampedGain = coefficients.dampedGain
        dampedShelf = coefficients.dampedShelf
        damping = coefficients.damping
        diffuserAbsorption = coefficients.diffuserAbsorption
    }

    /// (j + 1)/8 in lane j: how far sample j of a group has moved towards the new coefficients.
    static var fractions: SIMD8<Float> { @_noLocks @inline(__always) get { SIMD8(1, 2, 3, 4, 5, 6, 7, 8) * 0.125 } }
}
