// Audio-file reading for rack: file information, the error type shared by all of RackIO's file
// code, and a libsndfile-backed reader that always delivers stereo, deinterleaved Float samples.
//
// Not realtime code: it allocates, calls into libsndfile and the kernel, and uses Foundation.

import CSndfile
import Foundation

import Glibc   // Linux only, like the rest of rack (JACK on Linux)

// MARK: - Formats

/// The sample encoding of a PCM or float file.
public enum SampleFormat: String, Sendable, CaseIterable {
    /// 16-bit signed integer PCM.
    case pcm16 = "16"
    /// 24-bit signed integer PCM.
    case pcm24 = "24"
    /// 32-bit IEEE float.
    case float = "float"
}

/// The container formats rack writes (and names by file extension). Reading accepts anything
/// libsndfile understands; files in other containers simply report `container == nil`.
public enum AudioContainer: Sendable, CaseIterable {
    /// RIFF WAVE (`.wav`, `.wave`).
    case wav
    /// FLAC (`.flac`).
    case flac
    /// Ogg Vorbis (`.ogg`, `.oga`).
    case ogg

    /// The container named by the extension of `path` (case-insensitive): `.wav`/`.wave`,
    /// `.flac`, `.ogg`/`.oga`. `nil` for any other extension or none.
    public init?(path: String) {
        guard let ext = AudioContainer.fileExtension(of: path) else { return nil }
        switch ext.lowercased() {
        case "wav", "wave": self = .wav
        case "flac": self = .flac
        case "ogg", "oga": self = .ogg
        default: return nil
        }
    }

    /// The usual file extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .wav: return "wav"
        case .flac: return "flac"
        case .ogg: return "ogg"
        }
    }

    /// The extension of the last path component (text after its last dot), or `nil` when it has
    /// none. A leading dot (hidden file such as `.wav`) does not start an extension.
    static func fileExtension(of path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
    }

    /// The container of an open libsndfile format word (`SF_INFO.format`), `nil` for others.
    init?(sndfileFormat format: Int32) {
        switch Int(format) & Int(SF_FORMAT_TYPEMASK) {
        case Int(SF_FORMAT_WAV), Int(SF_FORMAT_WAVEX), Int(SF_FORMAT_RF64): self = .wav
        case Int(SF_FORMAT_FLAC): self = .flac
        case Int(SF_FORMAT_OGG): self = .ogg
        default: return nil
        }
    }
}

extension SampleFormat {
    /// The sample format of a libsndfile format word, `nil` unless 16-bit, 24-bit or 32-bit float.
    init?(sndfileFormat format: Int32) {
        switch Int(format) & Int(SF_FORMAT_SUBMASK) {
        case Int(SF_FORMAT_PCM_16): self = .pcm16
        case Int(SF_FORMAT_PCM_24): self = .pcm24
        case Int(SF_FORMAT_FLOAT): self = .float
        default: return nil
        }
    }
}

// MARK: - Info

/// What a sound file contains, as found when it was opened.
public struct AudioFileInfo: Sendable, Equatable {
    /// The path the file was opened with.
    public let path: String
    /// Length in frames (one frame = one sample per channel), at `sampleRate`.
    public let frames: Int64
    /// Sample rate in Hz (frames per second).
    public let sampleRate: Double
    /// Channel count stored in the file (1 or 2 for files the reader accepts).
    public let channels: Int
    /// The container, `nil` for formats other than WAV, FLAC and Ogg (AIFF, CAF, …).
    public let container: AudioContainer?
    /// The sample encoding, `nil` unless 16-bit PCM, 24-bit PCM or 32-bit float (e.g. Vorbis → nil).
    public let sampleFormat: SampleFormat?

    /// Length in seconds: `frames / sampleRate`.
    public var durationSeconds: Double { sampleRate > 0 ? Double(frames) / sampleRate : 0 }

    /// Describes a file: `frames` at `sampleRate` Hz, `channels` channels.
    public init(path: String, frames: Int64, sampleRate: Double, channels: Int,
                container: AudioContainer?, sampleFormat: SampleFormat?) {
        self.path = path
        self.frames = frames
        self.sampleRate = sampleRate
        self.channels = channels
        self.container = container
        self.sampleFormat = sampleFormat
    }
}

// MARK: - Errors

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

// MARK: - Small system helpers shared by the reader and the writer

enum Sys {
    /// `strerror(code)`, lower-cased first letter, e.g. "permission denied".
    static func message(_ code: Int32) -> String {
        guard let c = strerror(code) else { return "error \(code)" }
        return tidy(String(cString: c))
    }

    /// A library message made to fit after "…: ": first letter lower-cased (unless the word is
    /// an acronym), trailing period and whitespace removed, kept to one line.
    static func tidy(_ s: String) -> String {
        var t = s.trimmingCharacters(in: .whitespacesAndNewlines)
        if let nl = t.firstIndex(where: { $0 == "\n" || $0 == "\r" }) { t = String(t[..<nl]) }
        // libsndfile wraps errno text as "System error : File too large."
        for prefix in ["System error : ", "System error: "] where t.hasPrefix(prefix) {
            t = String(t.dropFirst(prefix.count))
        }
        while t.hasSuffix(".") { t.removeLast() }
        if let first = t.first, first.isUppercase {
            let second = t.dropFirst().first
            if second == nil || !(second!.isUppercase) { t = first.lowercased() + t.dropFirst() }
        }
        return t.isEmpty ? "unknown error" : t
    }

    /// The current libsndfile error text for `handle` (`nil` = the last failed open).
    static func sndfileMessage(_ handle: OpaquePointer?) -> String {
        guard let c = sf_strerror(handle) else { return "unknown libsndfile error" }
        return tidy(String(cString: c))
    }

    /// `stat()` of `path` (following symlinks), or the errno.
    static func statPath(_ path: String) -> Result<Glibc.stat, Errno> {
        var st = Glibc.stat()
        if stat(path, &st) == 0 { return .success(st) }
        return .failure(Errno(errno))
    }

    struct Errno: Error { let code: Int32; init(_ c: Int32) { code = c } }

    static func isRegular(_ st: Glibc.stat) -> Bool { (st.st_mode & S_IFMT) == S_IFREG }
    static func isDirectory(_ st: Glibc.stat) -> Bool { (st.st_mode & S_IFMT) == S_IFDIR }
}

// MARK: - Reader

/// Reads any libsndfile format, delivering STEREO deinterleaved Float: mono is copied to both
/// channels, stereo as is; more than 2 channels is an error at open.
///
/// Integer files are scaled to floats in [-1, 1) (divided by 2^15 / 2^23: libsndfile's default
/// normalisation), float files are passed through unchanged. (`SFC_SET_SCALE_FLOAT_INT_READ` is
/// not needed: it only affects float data read *as integers*, which this reader never does.)
/// Not thread-safe: use one reader from one thread at a time.
public final class AudioFileReader {
    /// What the file contains.
    public let info: AudioFileInfo

    private var handle: OpaquePointer?
    private var fd: Int32 = -1
    /// Frame index (0-based, at `info.sampleRate`) of the next frame `read` returns.
    public private(set) var position: Int64 = 0
    /// Interleaved scratch for mono → stereo, or stereo → deinterleaved.
    private var scratch: [Float] = []
    private static let chunkFrames = 4096

    /// Opens `path` for reading.
    ///
    /// Checks, in order: the file exists (`.missing`), is a regular file by `stat()` — devices,
    /// FIFOs, directories and sockets are refused before any `open()` (`.notRegularFile`) —, can be
    /// opened (`.unreadable`), is a sound file libsndfile can decode (`.badData`), has 1 or 2
    /// channels (`.tooManyChannels`), has a known, non-zero length (`.badData`, `.empty`), and
    /// for WAV and AIFF that the sample data is not cut short (`.badData`: truncated; libsndfile
    /// itself would silently shorten such a file). Other truncated files (FLAC, …) are reported
    /// by `read` when the data runs out before the length in the header.
    public init(path: String) throws(AudioFileError) {
        // 1. stat() before anything is opened: opening a FIFO for reading would block.
        switch Sys.statPath(path) {
        case .failure(let e):
            switch e.code {
            case ENOENT, ENOTDIR: throw .missing(path: path)
            default: throw .unreadable(path: path, reason: Sys.message(e.code))
            }
        case .success(let st):
            guard Sys.isRegular(st) else { throw .notRegularFile(path: path) }
        }

        // 2. open(); O_NONBLOCK so that if the path was swapped for a FIFO since the stat() we
        //    still do not block, and re-check the type of what was actually opened.
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        if fd < 0 {
            let code = errno
            if code == ENOENT { throw .missing(path: path) }
            throw .unreadable(path: path, reason: Sys.message(code))
        }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0, Sys.isRegular(st) else {
            Glibc.close(fd)
            throw .notRegularFile(path: path)
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        let fileSize = Int64(st.st_size)

        // 3. libsndfile. The descriptor stays ours (close_desc = 0) and is closed in close().
        var sfinfo = SF_INFO()
        guard let h = sf_open_fd(fd, Int32(SFM_READ), &sfinfo, 0) else {
            let code = sf_error(nil)
            let msg = Sys.sndfileMessage(nil)
            Glibc.close(fd)
            if code == Int32(SF_ERR_SYSTEM) { throw .unreadable(path: path, reason: msg) }
            if fileSize == 0 { throw .badData(path: path, reason: "empty file (0 bytes), not audio") }
            throw .badData(path: path, reason: msg)
        }

        // 4. Validate what libsndfile found.
        func fail(_ e: AudioFileError) -> AudioFileError {
            sf_close(h)
            Glibc.close(fd)
            return e
        }
        if sfinfo.channels > 2 { throw fail(.tooManyChannels(path: path, channels: Int(sfinfo.channels))) }
        if sfinfo.channels < 1 { throw fail(.badData(path: path, reason: "no channels")) }
        if sfinfo.samplerate <= 0 { throw fail(.badData(path: path, reason: "invalid sample rate \(sfinfo.samplerate)")) }
        if sfinfo.frames < 0 || sfinfo.frames == Int64.max {
            // libsndfile reports SF_COUNT_MAX when it cannot find the end, e.g. an Ogg stream
            // cut off before its end-of-stream page.
            throw fail(.badData(path: path, reason: "length unknown: the file is truncated or unterminated"))
        }
        if sfinfo.frames == 0 { throw fail(.empty(path: path)) }

        let container = AudioContainer(sndfileFormat: sfinfo.format)
        // 5. libsndfile silently shortens a WAV/AIFF whose header promises more data than the file
        //    holds (it only notes "(should be …)" in its log); a cut-off file is corrupt for us.
        if container == .wav {
            if let claim = WAVHeader.truncation(fd: fd, fileSize: fileSize) {
                throw fail(.badData(path: path, reason: claim))
            }
        } else if let claim = Self.truncationFromLog(h) {
            throw fail(.badData(path: path, reason: claim))
        }

        self.handle = h
        self.fd = fd
        self.info = AudioFileInfo(
            path: path, frames: sfinfo.frames, sampleRate: Double(sfinfo.samplerate),
            channels: Int(sfinfo.channels), container: container,
            sampleFormat: SampleFormat(sndfileFormat: sfinfo.format))
    }

    deinit { close() }

    /// Releases libsndfile and the file descriptor. Further reads throw `.io`. Idempotent.
    public func close() {
        if let h = handle { sf_close(h); handle = nil }
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }

    /// Reads up to `frames` frames at the current position into `left` and `right` (each must
    /// have room for `frames` Floats); returns the number of frames read, 0 at the end.
    ///
    /// Throws `.badData` if the data ends before the length the header promised (truncated or
    /// corrupt file: never silently zero-padded) and `.io` on a system read error.
    public func read(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                     frames: Int) throws(AudioFileError) -> Int {
        guard frames > 0 else { return 0 }
        var done = 0
        if scratch.count < Self.chunkFrames * 2 { scratch = [Float](repeating: 0, count: Self.chunkFrames * 2) }
        while done < frames {
            let want = min(frames - done, Self.chunkFrames)
            let n = try scratch.withUnsafeMutableBufferPointer { (buf) throws(AudioFileError) -> Int in
                let p = buf.baseAddress!
                let n = try readInterleaved(into: p, frames: want)
                let l = left + done, r = right + done
                for i in 0..<n {
                    l[i] = p[2 * i]
                    r[i] = p[2 * i + 1]
                }
                return n
            }
            done += n
            if n < want { break }
        }
        return done
    }

    /// Reads up to `frames` frames as interleaved stereo (L R L R …) into `dest`, which must have
    /// room for `2 * frames` Floats; returns the frames read, 0 at the end. Mono is duplicated.
    func readInterleaved(into dest: UnsafeMutablePointer<Float>, frames: Int) throws(AudioFileError) -> Int {
        guard let h = handle else { throw .io(path: info.path, reason: "file is closed") }
        let remaining = info.frames - position
        let want = Int(min(Int64(max(frames, 0)), max(remaining, 0)))
        guard want > 0 else { return 0 }
        // Mono is read into the second half of dest and spread forwards (no overlap problems:
        // frame i is read from dest[want + i] and written to dest[2i], dest[2i+1] ≤ want + i).
        let raw = info.channels == 1 ? dest + want : dest
        let got = Int(sf_readf_float(h, raw, sf_count_t(want)))
        if got > 0 {
            if info.channels == 1 {
                for i in 0..<got {
                    let s = raw[i]
                    dest[2 * i] = s
                    dest[2 * i + 1] = s
                }
            }
            position += Int64(got)
        }
        if got < want {
            // The header promised more frames than libsndfile could decode.
            let code = sf_error(h)
            let detail = code != 0 ? Sys.sndfileMessage(h) : "unexpected end of data"
            let at = position
            if code == Int32(SF_ERR_SYSTEM) {
                throw .io(path: info.path, reason: "read failed at frame \(at): \(detail)")
            }
            throw .badData(path: info.path,
                           reason: "truncated or corrupt: \(detail) at frame \(at) of \(info.frames)")
        }
        return got
    }

    /// Moves the read position to frame `toFrame` (0-based, at the file's rate), clamped to
    /// `0 … info.frames`.
    public func seek(toFrame: Int64) throws(AudioFileError) {
        guard let h = handle else { throw .io(path: info.path, reason: "file is closed") }
        let target = min(max(toFrame, 0), info.frames)
        if target == position { return }
        let r = sf_seek(h, sf_count_t(target), SEEK_SET)
        if r < 0 || r != target {
            throw .badData(path: info.path, reason: "cannot seek to frame \(target): \(Sys.sndfileMessage(h))")
        }
        position = target
    }

    /// libsndfile logs "SSND : N (should be M)" / "data : N (should be M)" when a chunk is
    /// longer than the file and then silently uses the shorter length. Returns a reason if so.
    private static func truncationFromLog(_ h: OpaquePointer) -> String? {
        var buf = [CChar](repeating: 0, count: 8192)
        let n = buf.withUnsafeMutableBytes { sf_command(h, Int32(SFC_GET_LOG_INFO), $0.baseAddress, Int32($0.count)) }
        guard n > 0 else { return nil }
        let log = buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        for line in log.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("SSND :") || t.hasPrefix("data :"), let r = t.range(of: "(should be ") else { continue }
            let claimed = Int64(t[t.index(t.startIndex, offsetBy: 6)..<r.lowerBound].trimmingCharacters(in: .whitespaces))
            let actual = Int64(t[r.upperBound...].prefix { $0.isNumber })
            if let c = claimed, let a = actual, c > a {
                return "truncated: the header promises \(c) bytes of audio but the file holds \(a)"
            }
        }
        return nil
    }
}

// MARK: - WAV header check

/// Just enough RIFF/RF64 parsing to see whether the `data` chunk is cut short.
enum WAVHeader {
    /// A reason string if the WAV on `fd` declares more sample data than the file holds, else
    /// `nil`. Streaming placeholders (size 0 or 0xFFFFFFFF, "length unknown") are accepted.
    static func truncation(fd: Int32, fileSize: Int64) -> String? {
        func bytes(_ offset: Int64, _ count: Int) -> [UInt8]? {
            var b = [UInt8](repeating: 0, count: count)
            let n = b.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? b : nil
        }
        guard let head = bytes(0, 12) else { return nil }
        let id = String(decoding: head[0..<4], as: UTF8.self)
        let bigEndian = id == "RIFX"
        guard id == "RIFF" || id == "RIFX" || id == "RF64",
              String(decoding: head[8..<12], as: UTF8.self) == "WAVE" else { return nil }
        func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
            let v = UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
            return bigEndian ? v.byteSwapped : v
        }
        func u64(_ b: [UInt8], _ at: Int) -> UInt64 {
            UInt64(u32(b, at)) | UInt64(u32(b, at + 4)) << 32
        }
        var ds64DataSize: UInt64?
        var offset: Int64 = 12
        var chunks = 0
        while offset + 8 <= fileSize, chunks < 4096 {
            chunks += 1
            guard let ch = bytes(offset, 8) else { return nil }
            let cid = String(decoding: ch[0..<4], as: UTF8.self)
            let size = u32(ch, 4)
            if cid == "ds64", let d = bytes(offset + 8, 24) { ds64DataSize = u64(d, 8) }
            if cid == "data" {
                var declared = UInt64(size)
                if size == 0xFFFF_FFFF, let d = ds64DataSize { declared = d }
                if declared == 0 || declared == 0xFFFF_FFFF || declared == UInt64.max { return nil }
                let available = UInt64(max(fileSize - (offset + 8), 0))
                if declared > available {
                    return "truncated: the header promises \(declared) bytes of audio but the file holds \(available)"
                }
                return nil
            }
            offset += 8 + Int64(size) + Int64(size & 1)
        }
        return nil
    }
}
