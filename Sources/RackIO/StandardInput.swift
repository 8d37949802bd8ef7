// `-` as an input (`sox … -t wav - | rack render - out.wav`), as sox and ffmpeg read it.

import Glibc

/// Standard input as a file the readers can open by path, any number of times.
///
/// A render needs its input's length before it starts (the output is as long as the input
/// plus the tail, and automation is checked against it), which a pipe does not tell. So what
/// arrives on a pipe is copied first, 64 KiB at a time (memory stays flat), into an unnamed
/// temporary file (made in `$TMPDIR`, else `/tmp`, and unlinked at once) that disappears with the process;
/// standard input redirected from a regular file (`< in.wav`) is read where it is. The format is
/// whatever the stream holds (WAV, FLAC, Ogg, … as libsndfile reads it).
public final class StandardInput {
    /// The name messages give standard input.
    public static let name = "-"
    /// A path that opens the input from its start (`/proc/self/fd/N`).
    public let path: String
    private let spool: Int32?

    /// Takes standard input. Throws `.unreadable` for a terminal (audio is not typed), `.io`
    /// when the copy fails (disk full: the message says where it was copying to).
    public init() throws(AudioFileError) {
        let input = STDIN_FILENO
        if isatty(input) == 1 {
            throw .unreadable(path: Self.name, reason: "standard input is a terminal; pipe audio into rack or name a file")
        }
        var st = Glibc.stat()
        if fstat(input, &st) == 0, Sys.isRegular(st) {
            path = "/proc/self/fd/\(input)"
            spool = nil
            return
        }
        let directory = Self.temporaryDirectory()
        // mkstemp, then unlink at once: a file only this descriptor reaches (0600).
        var template = Array((directory + "/rack-stdin-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw .io(path: Self.name, reason: "cannot make a temporary file in '\(directory)': \(Sys.message(errno))")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        do throws(AudioFileError) {
            try Self.copy(from: input, to: fd, directory: directory)
        } catch {
            Glibc.close(fd)
            throw error
        }
        spool = fd
        path = "/proc/self/fd/\(fd)"
    }

    deinit { if let spool { Glibc.close(spool) } }

    /// `$TMPDIR` when set and not empty, else `/tmp` (as mktemp(1)).
    static func temporaryDirectory() -> String {
        guard let value = getenv("TMPDIR").map({ String(cString: $0) }), !value.isEmpty else { return "/tmp" }
        return value
    }

    private static func copy(from input: Int32, to output: Int32, directory: String) throws(AudioFileError) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if n == 0 { return }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: name, reason: "read failed: \(Sys.message(errno))")
            }
            var done = 0
            while done < n {
                let w = buffer.withUnsafeBytes { Glibc.write(output, $0.baseAddress! + done, n - done) }
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else {
                    throw .io(path: name, reason: "cannot copy it to '\(directory)': \(Sys.message(errno))")
                }
                done += w
            }
        }
    }
}

extension AudioFileError {
    /// The same error about `name` where it named `path` (standard input's copy is named `-`).
    public func naming(_ path: String, as name: String) -> AudioFileError {
        guard self.path == path else { return self }
        switch self {
        case .missing: return .missing(path: name)
        case .notRegularFile: return .notRegularFile(path: name)
        case .unreadable(_, let r): return .unreadable(path: name, reason: r)
        case .badData(_, let r): return .badData(path: name, reason: r)
        case .tooManyChannels(_, let c): return .tooManyChannels(path: name, channels: c)
        case .empty: return .empty(path: name)
        case .cannotCreate(_, let r): return .cannotCreate(path: name, reason: r)
        case .io(_, let r): return .io(path: name, reason: r)
        }
    }
}
