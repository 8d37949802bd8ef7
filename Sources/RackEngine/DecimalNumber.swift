/// The one reader of numbers that people type (`--set`, `--tail`, `--rate`, `--length`,
/// automation files): decimal only, as the README writes them. `Double(String)` also takes
/// hexadecimal (`0x10` read as 16), `inf`, `nan` and `0x1p4`, none of which a user means as a
/// decimal number of hertz or seconds.
public enum DecimalNumber {
    /// `text` as a finite number when it is `[+-]digits[.digits][e[+-]digits]` (digits on at
    /// least one side of the point), else nil.
    public static func parse(_ text: String) -> Double? {
        guard isDecimal(text.utf8), let v = Double(text), v.isFinite else { return nil }
        return v
    }

    private static func isDecimal(_ bytes: String.UTF8View) -> Bool {
        var i = bytes.startIndex
        func digits() -> Int {
            var n = 0
            while i < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { n += 1; i = bytes.index(after: i) }
            return n
        }
        func skip(_ set: String) -> Bool {
            guard i < bytes.endIndex, set.utf8.contains(bytes[i]) else { return false }
            i = bytes.index(after: i)
            return true
        }
        _ = skip("+-")
        var mantissa = digits()
        if skip(".") { mantissa += digits() }
        guard mantissa > 0 else { return false }
        if skip("eE") {
            _ = skip("+-")
            guard digits() > 0 else { return false }
        }
        return i == bytes.endIndex
    }
}
