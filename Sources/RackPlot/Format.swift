import Foundation
import RackEngine

/// How the plots write values: Hz as "384 Hz" / "2.5 kHz", the rest as number and unit.
enum Format {
    static func hertz(_ f: Double) -> String {
        if f >= 1000 { return trimmed(f / 1000, digits: f >= 10_000 ? 1 : 2) + " kHz" }
        return trimmed(f, digits: f >= 100 ? 0 : 1) + " Hz"
    }

    /// A number with at most `digits` decimals and no trailing zeros, with a real minus sign.
    static func trimmed(_ x: Double, digits: Int) -> String {
        var s = String(format: "%.\(digits)f", x)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        if s == "-0" { s = "0" }
        return s.replacingOccurrences(of: "-", with: "−")
    }

    /// A parameter value with its unit, as the lanes label it.
    static func value(_ v: Double, of spec: ParameterSpec) -> String {
        switch spec.taper {
        case .choice: return spec.format(v)
        case .toggle: return v >= 0.5 ? "on" : "off"
        case .logarithmic where spec.unit == "Hz": return hertz(v)
        default:
            let digits = abs(v) >= 100 ? 0 : 1
            let sign = spec.unit == "dB" && v > 0.0001 ? "+" : ""
            return sign + trimmed(v, digits: digits) + " " + spec.unit
        }
    }

    /// Seconds on the time axis.
    static func seconds(_ t: Double) -> String { trimmed(t, digits: 3) + " s" }
}
