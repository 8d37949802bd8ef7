// The error type shared by all of RackIO's file code.

import RackEngine
import RackPathText

/// One error type for all file problems, each with the exit status the CLI ends with
/// (`ExitStatus`, sysexits(3)) and a one-line message naming the file.
public enum AudioFileError: Error, CustomStringConvertible, Equatable {
    /// The file does not exist (`.noInput`).
    case missing(path: String)
    /// A directory, device, FIFO or socket: refused after `stat()`, never opened (`.noInput`).
    case notRegularFile(path: String)
    /// It exists but cannot be opened for reading, e.g. permission denied (`.noInput`).
    case unreadable(path: String, reason: String)
    /// Not audio, truncated, corrupt or unsupported (`.dataError`).
    case badData(path: String, reason: String)
    /// More than two channels (`.dataError`).
    case tooManyChannels(path: String, channels: Int)
    /// The file holds zero frames (`.dataError`).
    case empty(path: String)
    /// The output file cannot be created: bad extension, bad format, directory missing or not
    /// writable (`.cannotCreate`).
    case cannotCreate(path: String, reason: String)
    /// A read or write failed part-way (`.ioError`).
    case io(path: String, reason: String)

    /// The exit status the CLI ends with.
    public var status: ExitStatus {
        switch self {
        case .missing, .notRegularFile, .unreadable: return .noInput
        case .badData, .tooManyChannels, .empty: return .dataError
        case .cannotCreate: return .cannotCreate
        case .io: return .ioError
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

    /// One line naming the file, without a trailing newline and without the program's name
    /// (the CLI puts "rack: " in front), e.g. `cannot open 'x.wav': no such file`.
    public var description: String {
        let q = "'\(Self.oneLine(PathText.display(path)))'"
        switch self {
        case .missing:
            return "cannot open \(q): no such file"
        case .notRegularFile:
            return "cannot open \(q): not a regular file"
        case .unreadable(_, let reason):
            return "cannot open \(q): \(Self.oneLine(reason))"
        case .badData(_, let reason):
            return "cannot read \(q): \(Self.oneLine(reason))"
        case .tooManyChannels(_, let channels):
            return "cannot read \(q): \(channels) channels (only mono and stereo are supported)"
        case .empty:
            return "cannot read \(q): no audio (0 frames)"
        case .cannotCreate(_, let reason):
            return "cannot create \(q): \(Self.oneLine(reason))"
        case .io(_, let reason):
            return "I/O error on \(q): \(Self.oneLine(reason))"
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
