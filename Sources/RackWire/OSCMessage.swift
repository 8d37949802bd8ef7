import CLibLo
import Foundation
import RackPathText

/// One OSC argument.
public enum OSCValue: Sendable, Equatable, CustomStringConvertible {
    case int(Int32)
    case float(Float)
    case double(Double)
    case int64(Int64)
    case string(String)
    case blob(Int)
    case bool(Bool)
    /// Any other type tag (nil, infinitum, timetag, MIDI, char…), kept as its tag.
    case other(Character)

    /// The value as a number, if it is one (ints and floats are both accepted wherever a
    /// number is; NaN and ±Inf come through and are rejected by the caller).
    public var number: Double? {
        switch self {
        case let .int(i): Double(i)
        case let .float(f): Double(f)
        case let .double(d): d
        case let .int64(i): Double(i)
        default: nil
        }
    }

    public var string: String? { if case let .string(s) = self { return s } else { return nil } }

    public var description: String {
        switch self {
        case let .int(i): "i:\(i)"
        case let .float(f): "f:\(f)"
        case let .double(d): "d:\(d)"
        case let .int64(i): "h:\(i)"
        case let .string(s): "s:\(s)"
        case let .blob(n): "b:\(n) bytes"
        case let .bool(b): b ? "T" : "F"
        case let .other(c): String(c)
        }
    }
}

/// An OSC message: address and arguments.
public struct OSCMessage: Sendable, Equatable {
    public var address: String
    public var arguments: [OSCValue]

    public init(_ address: String, _ arguments: [OSCValue] = []) {
        self.address = address
        self.arguments = arguments
    }

    /// The OSC wire form, serialised by liblo. Strings and numbers only (what rack sends).
    public func encoded() -> [UInt8] {
        guard let m = makeLoMessage() else { return [] }
        defer { lo_message_free(m) }
        var size = 0
        guard let raw = lo_message_serialise(m, address, nil, &size) else { return [] }
        defer { free(raw) }
        return Array(UnsafeRawBufferPointer(start: raw, count: size))
    }

    /// A liblo message holding the arguments (the caller frees it).
    private func makeLoMessage() -> lo_message? {
        guard let m = lo_message_new() else { return nil }
        for a in arguments {
            switch a {
            case let .int(i): lo_message_add_int32(m, i)
            case let .float(f): lo_message_add_float(m, f)
            case let .double(d): lo_message_add_double(m, d)
            case let .int64(i): lo_message_add_int64(m, i)
            case let .string(s): PathText.withCPath(s) { _ = lo_message_add_string(m, $0) }   // the bytes it came as
            case let .bool(b): if b { lo_message_add_true(m) } else { lo_message_add_false(m) }
            case .blob, .other: lo_message_add_nil(m)
            }
        }
        return m
    }
}

/// An OSC timetag: NTP seconds since 1900 in the upper 32 bits, fraction in the lower.
public struct OSCTimeTag: Sendable, Equatable, Comparable {
    public var raw: UInt64
    public init(raw: UInt64) { self.raw = raw }

    /// The special timetag meaning "immediately".
    public static let immediately = OSCTimeTag(raw: 1)
    public var isImmediate: Bool { raw == 1 }

    /// Now, by the system clock.
    public static func now() -> OSCTimeTag {
        var t = lo_timetag()
        lo_timetag_now(&t)
        return OSCTimeTag(raw: UInt64(t.sec) << 32 | UInt64(t.frac))
    }

    /// Seconds from `other` to `self` (negative when `self` is earlier), both in NTP era 0
    /// (1900–2036). Compared unsigned: a timetag of 0, or any from the distant past, is that
    /// far in the past (a signed difference wrapped them 68 years ahead).
    public func seconds(since other: OSCTimeTag) -> Double {
        raw >= other.raw ? Double(raw - other.raw) / 4_294_967_296.0 : -(Double(other.raw - raw) / 4_294_967_296.0)
    }

    /// `self` moved by `seconds`.
    public func adding(seconds: Double) -> OSCTimeTag {
        OSCTimeTag(raw: UInt64(bitPattern: Int64(bitPattern: raw) &+ Int64(seconds * 4_294_967_296.0)))
    }

    public static func < (a: OSCTimeTag, b: OSCTimeTag) -> Bool { a.raw < b.raw }
}

/// Why a packet could not be decoded.
public struct OSCDecodeError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

/// A packet decoded into messages, each with the timetag of its innermost bundle.
public enum OSCPacket {
    /// Decodes a datagram: a message, or a bundle (nested bundles allowed, depth ≤ 8).
    /// Messages are decoded by liblo, which validates type tags and lengths.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(OSCDecodeError) -> [(OSCMessage, OSCTimeTag)] {
        var out: [(OSCMessage, OSCTimeTag)] = []
        try decode(bytes, timeTag: .immediately, depth: 0, into: &out)
        return out
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer, timeTag: OSCTimeTag, depth: Int,
                               into out: inout [(OSCMessage, OSCTimeTag)]) throws(OSCDecodeError) {
        guard bytes.count >= 4, bytes.count % 4 == 0 else { throw OSCDecodeError(reason: "packet size \(bytes.count) is not a positive multiple of 4") }
        if bytes[0] == UInt8(ascii: "#") {
            guard bytes.count >= 16, Array(bytes[0..<8]) == Array("#bundle\0".utf8) else { throw OSCDecodeError(reason: "malformed bundle header") }
            guard depth < 8 else { throw OSCDecodeError(reason: "bundles nested too deep") }
            var tag: UInt64 = 0
            for i in 8..<16 { tag = tag << 8 | UInt64(bytes[i]) }
            var offset = 16
            while offset < bytes.count {
                guard offset + 4 <= bytes.count else { throw OSCDecodeError(reason: "truncated bundle element size") }
                let size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                offset += 4
                guard size > 0, size % 4 == 0, offset + size <= bytes.count else { throw OSCDecodeError(reason: "bundle element of \(size) bytes does not fit") }
                try decode(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)]), timeTag: OSCTimeTag(raw: tag), depth: depth + 1, into: &out)
                offset += size
            }
            return
        }
        guard bytes[0] == UInt8(ascii: "/") else { throw OSCDecodeError(reason: "not an OSC message (address must start with '/')") }
        out.append((try decodeMessage(bytes), timeTag))
    }

    private static func decodeMessage(_ bytes: UnsafeRawBufferPointer) throws(OSCDecodeError) -> OSCMessage {
        // liblo wants a mutable copy (it may not write, but takes void*).
        var copy = Array(bytes)
        let decoded: Result<OSCMessage, OSCDecodeError> = copy.withUnsafeMutableBytes { buf in
            var result: Int32 = 0
            guard let m = lo_message_deserialise(buf.baseAddress, buf.count, &result) else {
                return .failure(OSCDecodeError(reason: "malformed OSC message (liblo error \(result))"))
            }
            defer { lo_message_free(m) }
            guard let pathPtr = lo_get_path(buf.baseAddress, buf.count) else { return .failure(OSCDecodeError(reason: "malformed address")) }
            let address = String(cString: pathPtr)
            let argc = Int(lo_message_get_argc(m))
            let types = lo_message_get_types(m).map { String(cString: $0) } ?? ""
            let argv = lo_message_get_argv(m)
            var args: [OSCValue] = []
            args.reserveCapacity(argc)
            for (i, t) in types.utf8.prefix(argc).enumerated() {
                // T and F carry no data: liblo gives them no argument pointer.
                if t == UInt8(ascii: "T") || t == UInt8(ascii: "F") { args.append(.bool(t == UInt8(ascii: "T"))); continue }
                guard let a = argv?[i] else { args.append(.other(Character(UnicodeScalar(t)))); continue }
                switch t {
                case UInt8(ascii: "i"): args.append(.int(a.pointee.i))
                case UInt8(ascii: "f"): args.append(.float(a.pointee.f))
                case UInt8(ascii: "d"): args.append(.double(a.pointee.d))
                case UInt8(ascii: "h"): args.append(.int64(a.pointee.h))
                case UInt8(ascii: "s"), UInt8(ascii: "S"):
                    // Bytes as they came (a file name need not be UTF-8): PathText, not repaired.
                    args.append(.string(PathText.fromCString(UnsafeRawPointer(a).assumingMemoryBound(to: CChar.self))))
                case UInt8(ascii: "b"): args.append(.blob(Int(a.pointee.blob.size)))
                default: args.append(.other(Character(UnicodeScalar(t))))
                }
            }
            return .success(OSCMessage(address, args))
        }
        return try decoded.get()
    }

    /// A bundle's wire form (liblo serialises the elements).
    public static func bundle(_ messages: [OSCMessage], timeTag: OSCTimeTag) -> [UInt8] {
        var out = Array("#bundle\0".utf8)
        for i in (0..<8).reversed() { out.append(UInt8(truncatingIfNeeded: timeTag.raw >> (UInt64(i) * 8))) }
        for m in messages {
            let e = m.encoded()
            let n = UInt32(e.count)
            out += [UInt8(n >> 24), UInt8((n >> 16) & 0xff), UInt8((n >> 8) & 0xff), UInt8(n & 0xff)]
            out += e
        }
        return out
    }
}
