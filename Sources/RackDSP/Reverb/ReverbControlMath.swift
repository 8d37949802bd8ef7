/// The elementary functions of the reverb's control-rate remakes (`ReverbCoefficients.shape`,
/// `CutSection.set`: up to once per 32-sample control tick while a shaping control ramps):
/// `RackMath`'s series, with their coefficients as constants in Horner form, so none divides
/// (`RackMath` divides once per term: ~13–25 divisions a call, which made a moving control
/// cost more than the reverb). Same range reductions and series lengths, so the same accuracy
/// (relative error ~2e-16; they differ from `RackMath` by rounding only). The rooms' designs
/// keep `RackMath` (a room at its own values is its design byte for byte).
///
/// - Realtime: safe
enum ReverbControlMath {
    /// 2^x: x = n + f, |f| ≤ 0.5, e^(f·ln2) by its Taylor series to the 13th power.
    @_noLocks @inline(__always)
    static func exp2(_ x: Double) -> Double {
        if !(x >= -1022 && x <= 1023) { return x.isNaN ? x : (x > 0 ? .infinity : 0) }
        let n = RackMath.floor(x + 0.5)
        let y = (x - n) * RackMath.ln2
        var p = 1.605_904_383_682_161_3e-10               // 1/13!
        p = p * y + 2.087_675_698_786_81e-09             // 1/12!
        p = p * y + 2.505_210_838_544_172e-08            // 1/11!
        p = p * y + 2.755_731_922_398_589e-07            // 1/10!
        p = p * y + 2.755_731_922_398_589_3e-06          // 1/9!
        p = p * y + 2.480_158_730_158_73e-05             // 1/8!
        p = p * y + 1.984_126_984_126_984e-04            // 1/7!
        p = p * y + 1.388_888_888_888_889e-03            // 1/6!
        p = p * y + 8.333_333_333_333_333e-03            // 1/5!
        p = p * y + 4.166_666_666_666_666_4e-02          // 1/4!
        p = p * y + 0.166_666_666_666_666_66             // 1/3!
        p = p * y + 0.5
        p = p * y + 1
        p = p * y + 1
        let scale = Double(bitPattern: UInt64(Int64(n) + 1023) << 52)
        return p * scale
    }

    /// 2^x of each lane, for lanes in −1022…1023 (the loop gains' exponents, ≥ −60): the same
    /// series as `exp2(_:)` on whole vectors, the nearest integer n by adding and subtracting
    /// 1.5·2^52 (whose low mantissa bits then hold n, for 2^n's exponent field).
    @_noLocks @inline(__always)
    static func exp2(_ x: SIMD8<Double>) -> SIMD8<Double> {
        let shifter = SIMD8<Double>(repeating: 6_755_399_441_055_744)    // 1.5·2^52
        let shifted = x + shifter
        let n = shifted - shifter
        let y = (x - n) * RackMath.ln2
        var p = SIMD8<Double>(repeating: 1.605_904_383_682_161_3e-10)
        p = p * y + 2.087_675_698_786_81e-09
        p = p * y + 2.505_210_838_544_172e-08
        p = p * y + 2.755_731_922_398_589e-07
        p = p * y + 2.755_731_922_398_589_3e-06
        p = p * y + 2.480_158_730_158_73e-05
        p = p * y + 1.984_126_984_126_984e-04
        p = p * y + 1.388_888_888_888_889e-03
        p = p * y + 8.333_333_333_333_333e-03
        p = p * y + 4.166_666_666_666_666_4e-02
        p = p * y + 0.166_666_666_666_666_66
        p = p * y + 0.5
        p = p * y + 1
        p = p * y + 1
        let exponent = (unsafeBitCast(shifted, to: SIMD8<UInt64>.self) &+ 1023) &<< 52
        return p * unsafeBitCast(exponent, to: SIMD8<Double>.self)
    }

    /// log2(x) for finite x > 0 (NaN for negative input, −∞ for 0): x = m·2^e, m in [√½, √2),
    /// log(m) = 2·atanh(s), s = (m − 1)/(m + 1), by its series to s^23.
    @_noLocks @inline(__always)
    static func log2(_ x: Double) -> Double {
        if let special = RackMath.log2Special(x) { return special }
        let (e, m) = RackMath.log2Split(x)
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        var p = 0.043_478_260_869_565_216                // 1/23
        p = p * s2 + 0.047_619_047_619_047_616           // 1/21
        p = p * s2 + 0.052_631_578_947_368_42            // 1/19
        p = p * s2 + 0.058_823_529_411_764_705           // 1/17
        p = p * s2 + 0.066_666_666_666_666_67            // 1/15
        p = p * s2 + 0.076_923_076_923_076_93            // 1/13
        p = p * s2 + 0.090_909_090_909_090_91            // 1/11
        p = p * s2 + 0.111_111_111_111_111_1             // 1/9
        p = p * s2 + 0.142_857_142_857_142_85            // 1/7
        p = p * s2 + 0.2                                 // 1/5
        p = p * s2 + 0.333_333_333_333_333_3             // 1/3
        p = p * s2 + 1
        return e + (s * p) * 2.885_390_081_777_926_8     // 2/ln 2
    }

    /// sin and cos together: quadrant reduction to |r| ≤ π/4, Taylor series to r^21 and r^20.
    @_noLocks @inline(__always)
    static func sincos(_ x: Double) -> (sin: Double, cos: Double) {
        let q = RackMath.floor(x * 0.636_619_772_367_581_4 + 0.5)      // 2/π
        let r = x - q * 1.570_796_326_794_896_6                           // π/2
        let r2 = r * r
        var s = 1.957_294_106_339_126_3e-20                               // 1/21!
        s = s * r2 - 8.220_635_246_624_33e-18
        s = s * r2 + 2.811_457_254_345_520_6e-15
        s = s * r2 - 7.647_163_731_819_816e-13
        s = s * r2 + 1.605_904_383_682_161_3e-10
        s = s * r2 - 2.505_210_838_544_172e-08
        s = s * r2 + 2.755_731_922_398_589_3e-06
        s = s * r2 - 1.984_126_984_126_984e-04
        s = s * r2 + 8.333_333_333_333_333e-03
        s = s * r2 - 0.166_666_666_666_666_66
        s = (s * r2 + 1) * r
        var c = 4.110_317_623_312_165e-19                                 // 1/20!
        c = c * r2 - 1.561_920_696_858_622_5e-16
        c = c * r2 + 4.779_477_332_387_385e-14
        c = c * r2 - 1.147_074_559_772_972_5e-11
        c = c * r2 + 2.087_675_698_786_81e-09
        c = c * r2 - 2.755_731_922_398_589e-07
        c = c * r2 + 2.480_158_730_158_73e-05
        c = c * r2 - 1.388_888_888_888_889e-03
        c = c * r2 + 4.166_666_666_666_666_4e-02
        c = c * r2 - 0.5
        c = c * r2 + 1
        switch Int(q) & 3 {
        case 0: return (s, c)
        case 1: return (c, -s)
        case 2: return (-s, -c)
        default: return (-c, s)
        }
    }

    @_noLocks @inline(__always)
    static func cos(_ x: Double) -> Double { sincos(x).cos }

    @_noLocks @inline(__always)
    static func tan(_ x: Double) -> Double {
        let sc = sincos(x)
        return sc.sin / sc.cos
    }

    /// √x for x ≥ 0 (0 for anything else): Newton's iteration for 1/√x, r ← r·(3 − x·r²)/2, from
    /// the exponent-halving guess (relative error ≤ 3.5 %: four steps reach double precision),
    /// then one Newton step for √x itself. (`Double.squareRoot()` is not visible to the realtime
    /// checker; `ReverbCoefficients.squareRoot` goes through log2 and exp2.)
    @_noLocks @inline(__always)
    static func squareRoot(_ x: Double) -> Double {
        guard x > 0 && x.isFinite else { return x.isInfinite && x > 0 ? x : 0 }
        var r = Double(bitPattern: 0x5FE6_EB50_C7B5_37A9 &- (x.bitPattern >> 1))
        let half = 0.5 * x
        r *= 1.5 - half * r * r
        r *= 1.5 - half * r * r
        r *= 1.5 - half * r * r
        r *= 1.5 - half * r * r
        let root = x * r
        return root + 0.5 * r * (x - root * root)
    }

    /// √x of each lane (0 for negative lanes): `squareRoot(_:)` on whole vectors.
    @_noLocks @inline(__always)
    static func squareRoot(_ x: SIMD8<Double>) -> SIMD8<Double> {
        var bits = unsafeBitCast(x, to: SIMD8<UInt64>.self)
        bits &= (bits &>> 63) &- 1                      // a negative lane (sign bit set) to +0
        let v = unsafeBitCast(bits, to: SIMD8<Double>.self)
        let guess = SIMD8<UInt64>(repeating: 0x5FE6_EB50_C7B5_37A9) &- (bits &>> 1)
        var r = unsafeBitCast(guess, to: SIMD8<Double>.self)
        let half = 0.5 * v
        r *= 1.5 - half * r * r
        r *= 1.5 - half * r * r
        r *= 1.5 - half * r * r
        r *= 1.5 - half * r * r
        let root = v * r
        return root + 0.5 * r * (v - root * root)
    }
}
