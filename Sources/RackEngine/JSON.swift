/// A JSON value with ordered object keys (so the namespace reads in the parameter table's
/// order) and rack's one JSON writer: OSCQuery answers, the web page's inlined data, preset
/// files and the names quoted in messages.
public indirect enum JSON: Sendable, Equatable {
    case object([(String, JSON)])
    case array([JSON])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    public static func == (a: JSON, b: JSON) -> Bool { a.text == b.text }

    /// The member `key` of an object (nil for other values or a missing key).
    public subscript(key: String) -> JSON? {
        if case let .object(members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    /// Compact JSON text, safe to inline in an HTML page (`<` written as `\u003c`, so it never
    /// closes a `<script>`): what the HTTP side serves.
    public var text: String { text(inlineSafe: true) }

    /// Compact JSON text; `inlineSafe` false leaves `<` as it is (files and messages).
    public func text(inlineSafe: Bool) -> String {
        var out = ""
        write(to: &out, inlineSafe: inlineSafe)
        return out
    }

    /// `s` as a JSON string literal, `<` as it is (preset files, names quoted in messages).
    public static func quoted(_ s: String) -> String { JSON.string(s).text(inlineSafe: false) }

    private func write(to out: inout String, inlineSafe: Bool) {
        switch self {
        case let .object(members):
            out += "{"
            for (i, (k, v)) in members.enumerated() {
                if i > 0 { out += "," }
                JSON.string(k).write(to: &out, inlineSafe: inlineSafe)
                out += ":"
                v.write(to: &out, inlineSafe: inlineSafe)
            }
            out += "}"
        case let .array(items):
            out += "["
            for (i, v) in items.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out, inlineSafe: inlineSafe)
            }
            out += "]"
        case let .string(s):
            out += "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "<" where inlineSafe: out += "\\u003c"
                default:
                    if u.value < 0x20 {
                        let hex = String(u.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(u)
                    }
                }
            }
            out += "\""
        case let .number(d):
            // JSON has no NaN or infinity; rack never publishes them, but never write invalid JSON.
            if !d.isFinite { out += "null" } else if d == d.rounded(), abs(d) < 1e15 { out += String(Int64(d)) } else { out += String(d) }
        case let .bool(b):
            out += b ? "true" : "false"
        case .null:
            out += "null"
        }
    }
}
