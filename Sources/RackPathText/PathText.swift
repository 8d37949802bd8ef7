/// File names as Linux has them: bytes, not necessarily UTF-8 (`$'\xff\xfe-x.wav'`). rack holds
/// a path as a `String` everywhere; a byte that is not part of valid UTF-8 is kept as one
/// private-use character (U+10FE00 + the byte) instead of being repaired to U+FFFD, so the
/// exact bytes come back when the file is opened (`withCPath`, `bytes`), and a message shows the
/// name readably (`display`: `\xFF\xFE-x.wav`). argv and OSC strings enter through
/// `fromBytes`; every open, stat, rename and unlink of a path leaves through `withCPath`.
public enum PathText {
    /// The first of the 256 private-use characters that stand for a byte outside UTF-8.
    static let escapeBase: UInt32 = 0x10FE00

    /// `bytes` as a path string: valid UTF-8 as it is, every other byte escaped.
    public static func fromBytes<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let bytes = Array(bytes)
        if let valid = String(validating: bytes, as: UTF8.self), !valid.unicodeScalars.contains(where: isEscape) {
            return valid
        }
        var scalars = String.UnicodeScalarView()
        var i = 0
        while i < bytes.count {
            let length = validSequenceLength(bytes, at: i)
            if length > 0, let s = String(validating: bytes[i..<i + length], as: UTF8.self),
               let scalar = s.unicodeScalars.first, !isEscape(scalar) {
                scalars.append(scalar)
                i += length
            } else {
                // An invalid byte, or one of our escape characters written as UTF-8: escaped
                // byte by byte, so that decoding is always exact.
                for b in bytes[i..<i + max(length, 1)] { scalars.append(Unicode.Scalar(escapeBase + UInt32(b))!) }
                i += max(length, 1)
            }
        }
        return String(scalars)
    }

    /// A NUL-terminated C string's bytes as a path string.
    public static func fromCString(_ pointer: UnsafePointer<CChar>) -> String {
        let length = strlenOf(pointer)
        return fromBytes(UnsafeRawBufferPointer(start: pointer, count: length).bindMemory(to: UInt8.self))
    }

    /// The bytes `path` stands for (escapes back to their bytes).
    public static func bytes(_ path: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if isEscape(scalar) {
                out.append(UInt8(scalar.value - escapeBase))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }

    /// Calls `body` with `path`'s bytes as a NUL-terminated C string: what open(2) and friends take.
    /// Typed throws: `body`'s own error type passes through (Embedded Swift, which the plugins
    /// are built with, has no untyped `rethrows`).
    public static func withCPath<R, Failure: Error>(_ path: String,
                                                    _ body: (UnsafePointer<CChar>) throws(Failure) -> R) throws(Failure) -> R {
        var raw = bytes(path).map { CChar(bitPattern: $0) }
        raw.append(0)
        return try raw.withUnsafeBufferPointer { (buffer) throws(Failure) -> R in try body(buffer.baseAddress!) }
    }

    /// `path` for a message: escaped bytes as `\xFF`, the rest as it is.
    public static func display(_ path: String) -> String {
        guard path.unicodeScalars.contains(where: isEscape) else { return path }
        var out = ""
        for scalar in path.unicodeScalars {
            if isEscape(scalar) {
                let b = scalar.value - escapeBase
                out += "\\x" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= escapeBase && scalar.value <= escapeBase + 0xFF
    }

    /// The length of the UTF-8 sequence its lead byte announces at `i` (0 for a byte that
    /// cannot lead one, or when the bytes run out).
    private static func validSequenceLength(_ bytes: [UInt8], at i: Int) -> Int {
        let lead = bytes[i]
        let length = lead < 0x80 ? 1 : lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3
            : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0
        return i + length <= bytes.count ? length : 0
    }

    private static func strlenOf(_ pointer: UnsafePointer<CChar>) -> Int {
        var n = 0
        while pointer[n] != 0 { n += 1 }
        return n
    }
}
