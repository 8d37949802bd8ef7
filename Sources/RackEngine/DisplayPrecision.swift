/// How finely a parameter's value is written: to a number of significant digits, never finer
/// than a number of decimals. Hz: 4 significant digits, at most 1 decimal (3529.41 → 3529,
/// 12.34 → 12.3); dB, ms, %: 1 decimal; s: 2 decimals; a toggle: whole numbers.
public struct DisplayPrecision: Sendable, Equatable {
    /// Significant digits kept, or nil when only `decimals` limits it.
    public let significantDigits: Int?
    /// Most digits after the point.
    public let decimals: Int

    public init(significantDigits: Int? = nil, decimals: Int) {
        self.significantDigits = significantDigits
        self.decimals = decimals
    }

    /// Frequencies: 4 significant digits, at most 0.1 Hz.
    public static let hertz = DisplayPrecision(significantDigits: 4, decimals: 1)
    /// dB, ms, %: 0.1.
    public static let tenths = DisplayPrecision(decimals: 1)
    /// Seconds: 0.01 s.
    public static let hundredths = DisplayPrecision(decimals: 2)
    /// Toggles and indices: whole numbers.
    public static let whole = DisplayPrecision(decimals: 0)

    /// `value` rounded to this precision (halves away from zero); not finite or zero: as it is.
    /// The result is the Double nearest the rounded decimal, so it prints without noise.
    public func rounded(_ value: Double) -> Double {
        guard value.isFinite, value != 0 else { return value }
        var places = decimals
        if let digits = significantDigits {
            places = min(places, digits - 1 - Self.decimalExponent(of: value))
        }
        if places >= 0 {
            let scale = Self.power(places)
            return (value * scale).rounded() / scale
        }
        let scale = Self.power(-places)
        return (value / scale).rounded() * scale
    }

    /// `floor(log10(|x|))` for a finite non-zero `x`, by counting (no libm).
    static func decimalExponent(of x: Double) -> Int {
        var a = abs(x), e = 0
        while a >= 10 { a /= 10; e += 1 }
        while a < 1 { a *= 10; e -= 1 }
        return e
    }

    /// 10 to the power `n` (n ≥ 0), exact for the small `n` a precision uses.
    static func power(_ n: Int) -> Double {
        var p = 1.0
        for _ in 0..<n { p *= 10 }
        return p
    }
}
