// The error type shared by all of RackIO's file code.

/// One error type for all file problems, each with the sysexits code the CLI exits with and a
/// one-line message naming the file.
public enum AudioFileError: Error, CustomStringConvertible, Equatable {
    /// The file does not exist (EX_NOINPUT, 66).
    case missing(path: String)
    /// A directory, device, FIFO or socket: refused after `stat()`, never opened (66).
    case notRegularFile(path: String)
    /// It exists but cannot be opened for reading, e.g. permission denied (66).
    case unreadable(path: String, reason: String)
    /// Not audio, truncated, corrupt or unsupported (EX_DATAERR, 65).
    case badData(path: String, reason: String)
    /// More than two channels (65).
    case tooManyChannels(path: String, channels: Int)
    /// The file holds zero frames (65).
    case empty(path: String)
    /// The output file cannot be created: bad extension, bad format, directory missing or not
    /// writable (EX_CANTCREAT, 73).
    case cannotCreate(path: String, reason: String)
    /// A read or write failed part-way (EX_IOERR, 74).
    case io(path: String, reason: String)

    /// The sysexits(3) code the CLI exits with.
    public var exitCode: Int32 {
        switch self {
        case .missing, .notRegularFile, .unreadable: return 66      // EX_NOINPUT
        case .badData, .tooManyChannels, .empty: return 65          // EX_DATAERR
        case .cannotCreate: return 73                               // EX_CANTCREAT
        case .io: return 74                                         // EX_IOERR
        }
    }

    /// The file the error is about.
    public var path: String {
        switch self {
        case .missing(let p), .notRegularFile(let p), .unreadable(let p, _), .badData(let p, _),
             .tooManyChannels(let p, _), .empty(let p), .cannotCreate(let p, _), .io(let p, _):
            return p
        }
    }

    /// One line, no trailing newline, naming the file, e.g.
    /// `rack: cannot open 'x.wav': no such file`.
    public var description: String {
        let q = "'\(Self.oneLine(path))'"
        switch self {
        case .missing:
            return "rack: cannot open \(q): no such file"
        case .notRegularFile:
            return "rack: cannot open \(q): not a regular file"
        case .unreadable(_, let reason):
            return "rack: cannot open \(q): \(Self.oneLine(reason))"
        case .badData(_, let reason):
            return "rack: cannot read \(q): \(Self.oneLine(reason))"
        case .tooManyChannels(_, let channels):
            return "rack: cannot read \(q): \(channels) channels (only mono and stereo are supported)"
        case .empty:
            return "rack: cannot read \(q): no audio (0 frames)"
        case .cannotCreate(_, let reason):
            return "rack: cannot create \(q): \(Self.oneLine(reason))"
        case .io(_, let reason):
            return "rack: I/O error on \(q): \(Self.oneLine(reason))"
        }
    }

    /// `s` with control characters (newlines, tabs, escapes) escaped so the message stays on one line.
    static func oneLine(_ s: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(s.unicodeScalars.count)
        for u in s.unicodeScalars {
            switch u {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || u.value == 0x7F || (0x80..<0xA0).contains(u.value)
                    || u.value == 0x2028 || u.value == 0x2029 {
                    out += "\\u{\(String(u.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out
    }
}
