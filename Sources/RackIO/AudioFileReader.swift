// Audio-file reading for rack: a libsndfile-backed reader that always delivers stereo,
// deinterleaved Float samples.
//
// Not realtime code: it allocates, calls into libsndfile and the kernel, and uses Foundation.

import CSndfile
import Foundation
import RackPathText

import Glibc   // Linux only, like the rest of rack (JACK on Linux)

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
        try Self.checkRegularFile(path)
        let (fd, fileSize) = try Self.openRegularFile(path)
        let (h, sfinfo) = try Self.openSoundFile(fd: fd, path: path, fileSize: fileSize)
        let container = AudioContainer(sndfileFormat: sfinfo.format)
        do throws(AudioFileError) {
            try Self.validate(sfinfo, path: path)
            try Self.checkNotTruncated(h, fd: fd, container: container, fileSize: fileSize, path: path)
        } catch {
            sf_close(h)
            Glibc.close(fd)
            throw error
        }
        self.handle = h
        self.fd = fd
        self.info = AudioFileInfo(
            path: path, frames: sfinfo.frames, sampleRate: Double(sfinfo.samplerate),
            channels: Int(sfinfo.channels), container: container,
            sampleFormat: SampleFormat(sndfileFormat: sfinfo.format))
    }

    /// Stage 1: stat() before anything is opened (opening a FIFO for reading would block).
    private static func checkRegularFile(_ path: String) throws(AudioFileError) {
        switch Sys.statPath(path) {
        case .failure(let e):
            switch e.code {
            case ENOENT, ENOTDIR: throw .missing(path: path)
            default: throw .unreadable(path: path, reason: Sys.message(e.code))
            }
        case .success(let st):
            guard Sys.isRegular(st) else { throw .notRegularFile(path: path) }
        }
    }

    /// Stage 2: open() with O_NONBLOCK, so that a path swapped for a FIFO since the stat()
    /// still does not block, and re-check the type of what was actually opened. Returns the
    /// descriptor (blocking again) and the file's size in bytes.
    private static func openRegularFile(_ path: String) throws(AudioFileError) -> (fd: Int32, fileSize: Int64) {
        let fd = PathText.withCPath(path) { Glibc.open($0, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) }
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
        return (fd, Int64(st.st_size))
    }

    /// Stage 3: libsndfile. The descriptor stays ours (close_desc = 0) and is closed in
    /// close(); on failure it is closed here.
    private static func openSoundFile(fd: Int32, path: String, fileSize: Int64) throws(AudioFileError) -> (OpaquePointer, SF_INFO) {
        var sfinfo = SF_INFO()
        // Read before libsndfile has the descriptor: what a WAV header claims beyond the file
        // is the reason to give should libsndfile refuse it ("unspecified internal error").
        let claim = WAVHeader.truncation(fd: fd, fileSize: fileSize, placeholders: false)
        guard let h = sf_open_fd(fd, Int32(SFM_READ), &sfinfo, 0) else {
            let code = sf_error(nil)
            let msg = Sys.sndfileMessage(nil)
            Glibc.close(fd)
            if code == Int32(SF_ERR_SYSTEM) { throw .unreadable(path: path, reason: msg) }
            if fileSize == 0 { throw .badData(path: path, reason: "empty file (0 bytes), not audio") }
            throw .badData(path: path, reason: claim ?? msg)
        }
        return (h, sfinfo)
    }

    /// Stage 4: what libsndfile found is usable (1 or 2 channels, a rate, a known non-zero length).
    private static func validate(_ sfinfo: SF_INFO, path: String) throws(AudioFileError) {
        if sfinfo.channels > 2 { throw .tooManyChannels(path: path, channels: Int(sfinfo.channels)) }
        if sfinfo.channels < 1 { throw .badData(path: path, reason: "no channels") }
        if sfinfo.samplerate <= 0 { throw .badData(path: path, reason: "invalid sample rate \(sfinfo.samplerate)") }
        if sfinfo.frames < 0 || sfinfo.frames == Int64.max {
            // libsndfile reports SF_COUNT_MAX when it cannot find the end, e.g. an Ogg stream
            // cut off before its end-of-stream page.
            throw .badData(path: path, reason: "length unknown: the file is truncated or unterminated")
        }
        if sfinfo.frames == 0 { throw .empty(path: path) }
    }

    /// Stage 5: libsndfile silently shortens a WAV/AIFF whose header promises more data than
    /// the file holds (it only notes "(should be …)" in its log); a cut-off file is corrupt for us.
    private static func checkNotTruncated(_ h: OpaquePointer, fd: Int32, container: AudioContainer?, fileSize: Int64,
                                          path: String) throws(AudioFileError) {
        if container == .wav {
            if let claim = WAVHeader.truncation(fd: fd, fileSize: fileSize) { throw .badData(path: path, reason: claim) }
        } else if let claim = truncationFromLog(h) {
            throw .badData(path: path, reason: claim)
        }
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
                Interleaving.split(p, frames: n, left: left + done, right: right + done)
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
