/// The absorption of the reverb's eight loops for one decay setting (Jot & Chaigne 1991), in
/// double precision: what `ReverbCoefficients.apply(_:)` turns into the kernel's coefficients
/// and the loudness calibration reads. Made from the loops' delays, so it can be remade while
/// the network runs (a `decay` or `damping` change): no allocation, realtime-safe.
///
/// - Mid band: the loop's gain is 10^(−3·τ_i/T60mid), τ_i the loop delay (diffuser + line),
///   taken partly inside the diffuser (a_i = 10^(−3·M_i/T60mid) over its own delay M_i) and the
///   rest in the line.
/// - Low shelf: lifts the loop below the crossover to 10^(−3·τ_i/T60low) (zita-rev1's
///   rtlow/rtmid split).
/// - HF damping: a one-pole low-pass H = (1−b)/(1 − b·z⁻¹) with |H| = r at `halfDecayHz`,
///   r = g(T60/2)/g(T60) = gMid, so T60 there is half the mid-band T60. |H|² = r² gives
///   b² − 2Kb + 1 = 0 with K = (1 − r²·cos w)/(1 − r²); the root inside the unit circle is
///   b = K − √(K² − 1) (J. O. Smith, "First-Order Delay-Filter Design").
struct LineAbsorption {
    /// Mid-band loop gain g_mid of each line.
    var midGain: SIMD8<Double>
    /// g_low − g_mid of each line (the low shelf's lift).
    var lowShelf: SIMD8<Double>
    /// Pole b of each line's HF damping low-pass (0: undamped).
    var pole: SIMD8<Double>
    /// Absorption a of each line's diffuser over its own delay.
    var diffuser: SIMD8<Double>

    /// A lossless loop (a frozen tail): every gain 1, no shelf, no damping.
    static var lossless: LineAbsorption {
        @_noLocks @inline(__always) get {
            LineAbsorption(midGain: SIMD8(repeating: 1), lowShelf: .zero, pole: .zero,
                           diffuser: SIMD8(repeating: 1))
        }
    }

    @_noLocks @inline(__always)
    init(midGain: SIMD8<Double>, lowShelf: SIMD8<Double>, pole: SIMD8<Double>, diffuser: SIMD8<Double>) {
        (self.midGain, self.lowShelf, self.pole, self.diffuser) = (midGain, lowShelf, pole, diffuser)
    }

    /// Mid-band and low-band T60 in s, `halfDecayHz` the frequency where T60 is half the mid
    /// band's (nil: no HF damping), at `fs` Hz, for loops of these delays (samples).
    @_noLocks @inline(__always)
    init(midDecaySeconds: Double, lowDecaySeconds: Double, halfDecayHz: Double?, sampleRate fs: Double,
         lineDelay: SIMD8<Int32>, diffuserDelay: SIMD8<Int32>) {
        midGain = .zero
        lowShelf = .zero
        pole = .zero
        diffuser = .zero
        var cosW = 0.0
        if let halfDecayHz { cosW = RackMath.cos(2 * RackMath.pi * halfDecayHz / fs) }
        for i in 0..<8 {
            let tau = Double(diffuserDelay[i] &+ lineDelay[i]) / fs   // loop delay (s)
            let gMid = RackMath.exp10(-3 * tau / midDecaySeconds)     // 60 dB per T60 (Jot)
            let gLow = RackMath.exp10(-3 * tau / lowDecaySeconds)
            diffuser[i] = RackMath.exp10(-3 * Double(diffuserDelay[i]) / fs / midDecaySeconds)
            midGain[i] = gMid
            lowShelf[i] = gLow - gMid
            if halfDecayHz != nil {
                let r2 = gMid * gMid
                let k = (1 - r2 * cosW) / (1 - r2)
                pole[i] = k - ReverbCoefficients.squareRoot(k * k - 1)
            }
        }
    }
}

/// The absorption remade while a shaping control moves (`ReverbCoefficients.shape`, up to once
/// per 32-sample control tick): the same formulas as `LineAbsorption.init`, in parts (a `decay`
/// move remakes the gains and the poles, a `damping` move only the poles) and cheaper per line:
/// 10^(−3·τ_i/T) is 2^(loopExponent_i · 1/T) with loopExponent_i = −3·log2(10)·τ_i made once per
/// room and rate, 2^x, cos and √ are `ReverbControlMath`'s (none divides). The result
/// differs from `LineAbsorption.init`'s by double rounding only (worst 8e-14 relative over every
/// room, rate, decay and damping: `ReverbControlMathTests.testShapedAbsorptionIsTheDesignMaths`).
struct LineAbsorptionFactors {
    /// −3·log2(10)·τ_i, τ_i the loop delay (diffuser + line) of line i in s: g_mid = 2^(this/T60mid).
    var loopExponent: SIMD8<Double>
    /// −3·log2(10)·M_i, M_i the diffuser delay of line i in s: a_i = 2^(this/T60mid).
    var diffuserExponent: SIMD8<Double>

    /// Zero exponents (an unprepared core: every gain 1).
    init() {
        loopExponent = .zero
        diffuserExponent = .zero
    }

    /// The factors of loops of these delays (samples) at `fs` Hz.
    init(sampleRate fs: Double, lineDelay: SIMD8<Int32>, diffuserDelay: SIMD8<Int32>) {
        self.init()
        let perSecond = -3 * RackMath.log2Of10
        for i in 0..<8 {
            loopExponent[i] = perSecond * (Double(diffuserDelay[i] &+ lineDelay[i]) / fs)
            diffuserExponent[i] = perSecond * (Double(diffuserDelay[i]) / fs)
        }
    }

    /// The mid-band gains, low shelves and diffuser absorptions of `absorption` for these T60s
    /// (s); its poles are left as they are (`setPoles`). (Whole vectors: a loop storing `v[i]`
    /// goes through memory each lane.)
    @_noLocks @inline(__always)
    func setGains(_ absorption: inout LineAbsorption, midDecaySeconds: Double, lowDecaySeconds: Double) {
        let perMid = 1 / midDecaySeconds, perLow = 1 / lowDecaySeconds
        let gMid = ReverbControlMath.exp2(loopExponent * perMid)
        absorption.midGain = gMid
        absorption.lowShelf = ReverbControlMath.exp2(loopExponent * perLow) - gMid
        absorption.diffuser = ReverbControlMath.exp2(diffuserExponent * perMid)
    }

    /// The HF damping poles of `absorption` for its mid-band gains, `halfDecayHz` at `fs` Hz
    /// (nil: no damping), as `LineAbsorption.init` makes them.
    @_noLocks @inline(__always)
    func setPoles(_ absorption: inout LineAbsorption, halfDecayHz: Double?, sampleRate fs: Double) {
        guard let halfDecayHz else {
            absorption.pole = .zero
            return
        }
        let cosW = ReverbControlMath.cos(2 * RackMath.pi * halfDecayHz / fs)
        let r2 = absorption.midGain * absorption.midGain
        let k = (1 - r2 * cosW) / (1 - r2)
        absorption.pole = k - ReverbControlMath.squareRoot(k * k - 1)
    }
}
