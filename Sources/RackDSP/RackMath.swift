/// Elementary functions written in plain Swift, so that the render path can call them under
/// `@_noLocks`/`@_noAllocation` (the checker cannot see into libm). Accuracy is close to double
/// precision on the ranges the kernels use; `RackMathTests` measures it against the C library.
///
/// - Realtime: safe
public enum RackMath {
    // Constants are computed properties: a `static let` is a lazily initialised global
    // (swift_once), which the realtime checker rightly refuses.
    public static var pi: Double { @inline(__always) @_noLocks get { 3.141_592_653_589_793_238_46 } }
    public static var ln2: Double { @inline(__always) @_noLocks get { 0.693_147_180_559_945_309_42 } }
    public static var log2Of10: Double { @inline(__always) @_noLocks get { 3.321_928_094_887_362_347_87 } }

    /// 2^x. Range reduction to x = n + f, |f| ≤ 0.5, then a Taylor series of e^(f·ln2).
    @inlinable @inline(__always) @_noLocks
    public static func exp2(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 1023 { return .infinity }
        if x < -1022 { return 0 }
        let n = floor(x + 0.5)
        let y = (x - n) * ln2
        // e^y, |y| ≤ 0.347: terms to y^13 keep the error below 1e-16.
        var term = 1.0, sum = 1.0
        var k = 1.0
        while k <= 13 {
            term *= y / k
            sum += term
            k += 1
        }
        let scale = Double(bitPattern: UInt64(Int64(n) + 1023) << 52)
        return sum * scale
    }

    /// The largest integer ≤ x, for |x| < 2^62 (`rounded(.down)` without the rounding-rule
    /// metadata the realtime checker rejects).
    @inlinable @inline(__always) @_noLocks
    public static func floor(_ x: Double) -> Double {
        let t = Double(Int64(x))
        return t > x ? t - 1 : t
    }

    /// log2(x) for finite x > 0 (returns -inf for 0, NaN for negative input).
    /// Splits x = m·2^e with m in [√½, √2), then log(m) = 2·atanh((m−1)/(m+1)).
    @inlinable @inline(__always) @_noLocks
    public static func log2(_ x: Double) -> Double {
        if let special = log2Special(x) { return special }
        let (e, m) = log2Split(x)
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        var term = s, sum = 0.0
        var k = 1.0
        while k <= 23 {
            sum += term / k
            term *= s2
            k += 2
        }
        return e + 2 * sum / ln2
    }

    /// log2(x) where it needs no series: NaN for NaN or negative x, −∞ for 0, x for +∞; nil for
    /// finite x > 0. (Both log2 series, this one and `ReverbControlMath.log2`, start here.)
    @inlinable @inline(__always) @_noLocks
    public static func log2Special(_ x: Double) -> Double? {
        if x.isNaN || x < 0 { return .nan }
        if x == 0 { return -.infinity }
        if x.isInfinite { return x }
        return nil
    }

    /// x = m·2^e with m in [√½, √2) (e whole), for finite x > 0: the range reduction of both log2
    /// series (log2 x = e + log2 m).
    @inlinable @inline(__always) @_noLocks
    public static func log2Split(_ x: Double) -> (exponent: Double, mantissa: Double) {
        var e = Double(x.exponent)
        var m = x.significand            // in [1, 2)
        if m > 1.414_213_562_373_095 { m *= 0.5; e += 1 }
        return (e, m)
    }

    /// 10^x.
    @inlinable @inline(__always) @_noLocks
    public static func exp10(_ x: Double) -> Double { exp2(x * log2Of10) }

    /// Decibels to linear gain: 10^(dB/20).
    @inlinable @inline(__always) @_noLocks
    public static func gain(decibels: Double) -> Double { exp2(decibels * (log2Of10 / 20)) }

    /// sin and cos together, by quadrant reduction and Taylor series on [−π/4, π/4].
    @inlinable @inline(__always) @_noLocks
    public static func sincos(_ x: Double) -> (sin: Double, cos: Double) {
        let q = floor(x * (2 / pi) + 0.5)
        let r = x - q * (pi / 2)
        let r2 = r * r
        // sin r = r − r³/3! + …, cos r = 1 − r²/2! + …; |r| ≤ π/4, 10 terms each.
        var s = 0.0, c = 0.0
        var ts = r, tc = 1.0
        var k = 1.0
        while k <= 21 {
            s += ts
            c += tc
            ts *= -r2 / ((k + 1) * (k + 2))
            tc *= -r2 / (k * (k + 1))
            k += 2
        }
        switch Int(q) & 3 {
        case 0: return (s, c)
        case 1: return (c, -s)
        case 2: return (-s, -c)
        default: return (-c, s)
        }
    }

    @inlinable @inline(__always) @_noLocks
    public static func sin(_ x: Double) -> Double { sincos(x).sin }

    @inlinable @inline(__always) @_noLocks
    public static func cos(_ x: Double) -> Double { sincos(x).cos }

    @inlinable @inline(__always) @_noLocks
    public static func tan(_ x: Double) -> Double {
        let sc = sincos(x)
        return sc.sin / sc.cos
    }
}
