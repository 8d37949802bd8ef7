/// The few OSC messages the HTTP side writes itself (value pushes to WebSocket listeners), in
/// OSC 1.0 wire form: padded address, padded type tags, big-endian arguments.
enum OSCWire {
    /// One argument of a pushed message.
    enum Argument: Sendable, Equatable {
        case float(Float)
        case int(Int32)
        case string(String)
    }

    /// The wire form of `address` with `arguments`.
    static func message(_ address: String, _ arguments: [Argument]) -> [UInt8] {
        var out: [UInt8] = []
        appendString(address, to: &out)
        appendString("," + String(arguments.map(\.tag)), to: &out)
        for a in arguments {
            switch a {
            case let .float(f): appendBigEndian(f.bitPattern, to: &out)
            case let .int(i): appendBigEndian(UInt32(bitPattern: i), to: &out)
            case let .string(s): appendString(s, to: &out)
            }
        }
        return out
    }

    /// A NUL-terminated string padded to a multiple of 4 bytes (embedded NULs cut it short, as
    /// any OSC reader would).
    private static func appendString(_ s: String, to out: inout [UInt8]) {
        out += s.utf8.prefix { $0 != 0 }
        out.append(0)
        while out.count % 4 != 0 { out.append(0) }
    }

    private static func appendBigEndian(_ v: UInt32, to out: inout [UInt8]) {
        out += [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)]
    }
}

extension OSCWire.Argument {
    /// The OSC type tag.
    var tag: Character {
        switch self {
        case .float: "f"
        case .int: "i"
        case .string: "s"
        }
    }
}
