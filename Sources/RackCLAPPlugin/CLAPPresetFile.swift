import RackDSP
import RackEngine

/// A rack preset file (the factory presets' `Presets/*.json`, installed in
/// `PREFIX/share/rack/presets`; a user's saved presets) taken as the plugin's state: CLAP 1.1
/// has no preset extension, so a host reaches a preset by loading its file as a state. Read as
/// rack reads a preset file (RackFiles' `Preset.parse`): one flat JSON object, `name` a string,
/// every parameter by name through the state codec (`RackState.decode`: a room by its name,
/// ignoring case, numbers within their ranges, a field left out its row's missing-field value);
/// an unknown or repeated field, a wrong type or a value out of range makes it no preset
/// (nothing is loaded).
enum CLAPPresetFile {
    /// A JSON scalar a preset's field holds.
    enum Scalar {
        case string(String), number(Double)
    }

    /// The values preset text gives, by `ParameterID.rawValue`; nil when it is not a preset.
    static func decode(_ text: String) -> [Double]? {
        guard let fields = fields(Array(text.utf8)) else { return nil }
        guard case .string = fields["name"] else { return nil }
        if fields.keys.contains(where: { $0 != "name" && Parameters.named($0) == nil }) { return nil }
        let state = try? RackState.decode(fields.mapValues { field in
            switch field {
            case let .string(s): return StateValue.string(s)
            case let .number(n): return StateValue.number(n)
            }
        }, outOfRange: .refuse)
        return state?.values
    }

    /// The fields of one flat JSON object (string keys; string or number values), nil for any
    /// other text.
    static func fields(_ bytes: [UInt8]) -> [String: Scalar]? {
        var reader = Reader(bytes: bytes)
        var fields: [String: Scalar] = [:]
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        if !reader.take(UInt8(ascii: "}")) {
            repeat {
                guard let key = reader.string(), reader.take(UInt8(ascii: ":")), fields[key] == nil else { return nil }
                if let s = reader.string() { fields[key] = .string(s) } else if let n = reader.number() { fields[key] = .number(n) } else { return nil }
            } while reader.take(UInt8(ascii: ","))
            guard reader.take(UInt8(ascii: "}")) else { return nil }
        }
        reader.skipSpace()
        return reader.at == bytes.count ? fields : nil
    }

    /// A cursor over JSON text.
    struct Reader {
        let bytes: [UInt8]
        var at = 0

        /// Skips JSON's white space.
        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        /// Takes `byte` after white space; false (nothing taken) when it is not next.
        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        /// A string literal after white space (escapes decoded), nil when none is next.
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var out: [UInt8] = []
            while at < bytes.count {
                let c = bytes[at]
                at += 1
                if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                if c < 0x20 { return nil }
                guard c == UInt8(ascii: "\\") else { out.append(c); continue }
                guard at < bytes.count else { return nil }
                let e = bytes[at]
                at += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    out += Array(String(Character(scalar)).utf8)
                default: return nil
                }
            }
            return nil
        }

        /// The scalar of a `\u` escape (its 4 hex digits next; a surrogate pair as two).
        mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let high = hex4() else { return nil }
            guard (0xD800..<0xDC00).contains(high) else { return Unicode.Scalar(high) }
            guard take(UInt8(ascii: "\\")), at < bytes.count, bytes[at] == UInt8(ascii: "u") else { return nil }
            at += 1
            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }

        /// Four hex digits as a number.
        mutating func hex4() -> UInt32? {
            guard at + 4 <= bytes.count else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard let d = Int(String(UnicodeScalar(bytes[at])), radix: 16) else { return nil }
                v = v * 16 + UInt32(d)
                at += 1
            }
            return v
        }

        /// A number after white space (JSON's grammar: sign, digits, fraction, exponent), nil
        /// when none is next.
        mutating func number() -> Double? {
            skipSpace()
            let start = at
            let allowed: [UInt8] = Array("+-.eE0123456789".utf8)
            while at < bytes.count, allowed.contains(bytes[at]) { at += 1 }
            guard at > start, bytes[start] != UInt8(ascii: "+"), bytes[start] != UInt8(ascii: ".") else { return nil }
            return Double(String(decoding: bytes[start..<at], as: UTF8.self))
        }
    }
}
