// Atomic stereo sound-file writing with libsndfile.
//
// Data goes to a hidden temporary file next to the destination; commit() finishes the file,
// fsyncs it (when durable) and renames it over the destination, so a reader of `path` only ever sees the old
// file or the complete new one — never a partial file.

import CSndfile
import Foundation
import RackPathText
import Glibc
import RackEngine
import RackFiles

/// Writes a stereo file atomically: data goes to a hidden temp file in the same directory
/// (`.NAME.rack-tmp-XXXXXX`), `commit()` closes it, fsyncs it (unless asked not to), and renames
/// it over the destination;
/// `abort()` (and `deinit` without `commit()`) removes the temp file. Nothing partial is ever left
/// at `path`.
///
/// Formats: WAV 16/24-bit PCM or 32-bit IEEE float (its header is rack's, `WAVLayout`); FLAC 16/24-bit; Ogg Vorbis and MP3 (the sample
/// format is ignored). Integer output is clipped to full scale (no wrap-around). When replacing an
/// existing file, its permission bits are kept. Not thread-safe.
public final class AudioFileWriter {
    /// The destination path.
    public let path: String
    /// Sample rate of the file, in Hz (the requested rate rounded to a whole number).
    public var sampleRate: Double { encoder.sampleRate }
    /// The container, from the extension of `path`.
    public var container: AudioContainer { encoder.container }
    /// The sample format written (`nil` for Ogg Vorbis, which has none).
    public var sampleFormat: SampleFormat? { encoder.sampleFormat }
    /// Frames written so far.
    public var framesWritten: Int64 { encoder.framesWritten }

    /// The hidden temporary file that receives the data until `commit()`.
    let temporaryPath: String
    private let directory: String
    private var encoder: SndfileEncoder
    private var fd: Int32 = -1
    /// Whether `removeOnStopSignals()` armed the signal handlers for this writer.
    private var armedForSignals = false

    /// Creates the temporary file and prepares to write `path`.
    ///
    /// - Parameters:
    ///   - path: destination; its extension picks the container: `.wav`/`.wave`, `.flac`,
    ///     `.ogg`/`.oga` (case-insensitive).
    ///   - sampleRate: in Hz, a positive whole number (fractions are rounded).
    ///   - format: sample encoding; FLAC takes `.pcm16` or `.pcm24` only; ignored for Ogg (Vorbis).
    ///   - vorbisQuality: Ogg Vorbis VBR quality, 0 (smallest) … 1 (best); ignored otherwise.
    ///     The default 0.7 is `oggenc -q 7` (nominally ~220 kbit/s for stereo at 44.1 kHz).
    /// - Throws: `.cannotCreate` for an unknown extension, an unsupported format/rate, a missing or
    ///   unwritable directory, or a destination that is a directory or other non-regular file.
    public init(path: String, sampleRate: Double, format: SampleFormat,
                vorbisQuality: Double = 0.7) throws(AudioFileError) {
        self.path = path
        guard let container = AudioContainer(path: path) else {
            let ext = AudioContainer.fileExtension(of: path).map { "'.\($0)'" } ?? "no extension"
            throw .cannotCreate(path: path, reason: "unknown file type (\(ext)); use \(AudioContainer.names(dotted: true))")
        }
        // The format and rate are checked before anything is created.
        try SndfileEncoder.check(container: container, format: format, sampleRate: sampleRate, path: path)
        let destination = try Destination(path: path)
        let (tmp, fd) = try Self.createTemporaryFile(for: destination, path: path)
        do {
            encoder = try SndfileEncoder(fd: fd, container: container, format: format, sampleRate: sampleRate,
                                         vorbisQuality: vorbisQuality, path: path)
        } catch {
            Glibc.close(fd)
            PathText.withCPath(tmp) { _ = unlink($0) }
            throw error
        }
        self.temporaryPath = tmp
        self.directory = destination.directory
        self.fd = fd
    }

    // MARK: Stages of init

    /// Where the file goes: `OutputDestination`, the check `rack plot` makes too.
    struct Destination {
        let prefix: String
        let name: String
        let directory: String
        let keepMode: mode_t?

        static func split(_ path: String) -> (prefix: String, name: String) { OutputDestination.split(path) }

        init(path: String) throws(AudioFileError) {
            let d: OutputDestination
            do { d = try OutputDestination(path: path) } catch { throw .cannotCreate(path: path, reason: error.reason) }
            (prefix, name, directory, keepMode) = (d.prefix, d.name, d.directory, d.keepMode)
        }
    }

    /// Creates the hidden temp file beside the destination (O_EXCL, 0666 & ~umask like any new
    /// file, the replaced file's permission bits); its path and descriptor.
    private static func createTemporaryFile(for destination: Destination,
                                            path: String) throws(AudioFileError) -> (String, Int32) {
        var tmp = ""
        var fd: Int32 = -1
        for attempt in 0..<100 {
            tmp = destination.prefix + "." + destination.name + Self.temporaryMarker + Self.randomSuffix()
            fd = PathText.withCPath(tmp) { Glibc.open($0, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0o666) }
            if fd >= 0 { break }
            let code = errno
            if code != EEXIST || attempt == 99 {
                throw .cannotCreate(path: path, reason: "cannot create a file in '\(destination.directory)': \(Sys.message(code))")
            }
        }
        if let mode = destination.keepMode { _ = fchmod(fd, mode) }
        // Held until the descriptor closes (or the process dies): a temp file nobody holds is
        // stale (`removeStaleTemporaryFiles`).
        _ = flock(fd, LOCK_EX | LOCK_NB)
        return (tmp, fd)
    }

    deinit { abort() }

    /// Appends `frames` stereo frames (`left[i]`, `right[i]`; nominal range -1…1, larger values
    /// are clipped for integer formats) to the file.
    /// - Throws: `.io` if the data cannot be written (disk full, …) or the writer is finished;
    ///   the temporary file is then removed and the writer is finished. Also `.io` if a WAV file
    ///   would exceed its 4 GiB size limit: then nothing of this call is written, and what was
    ///   written before can still be committed.
    public func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) throws(AudioFileError) {
        if let refusal = encoder.refusal(adding: frames) { throw .io(path: path, reason: refusal) }
        do {
            try encoder.write(left: left, right: right, frames: frames, path: path)
        } catch {
            abort()
            throw error
        }
    }

    /// Finishes the file: closes it (libsndfile writes the final header), renames it over
    /// `path`. Afterwards `path` is the complete new file. With `durable` (the default) the
    /// file and the directory are fsynced too, so the result survives a power cut; without it
    /// the kernel flushes in its own time (as sox and ffmpeg do) — the rename still makes sure
    /// no reader ever sees a partial file.
    /// - Throws: `.io` on any failure; the temporary file is then removed and `path` untouched.
    public func commit(durable: Bool = true) throws(AudioFileError) {
        guard encoder.handle != nil else { throw .io(path: path, reason: "the file is already closed") }
        let fd = self.fd
        self.fd = -1
        let floatWAV = container == .wav && sampleFormat == .float
        let frames = framesWritten
        var failure = encoder.close()
        // libsndfile's float header lacks fmt's cbSize, which sox warns about: rack's replaces it.
        if failure == nil, floatWAV { _ = WAVLayout.rewriteFloatHeader(fd: fd, sampleRate: Int(sampleRate), frames: frames) }
        if failure == nil, durable, fsync(fd) != 0 { failure = "fsync: " + Sys.message(errno) }
        if Glibc.close(fd) != 0, failure == nil { failure = "close: " + Sys.message(errno) }
        if failure == nil, PathText.withCPath(temporaryPath, { from in PathText.withCPath(path) { rename(from, $0) } }) != 0 {
            failure = "rename: " + Sys.message(errno)
        }
        if failure != nil { PathText.withCPath(temporaryPath) { _ = unlink($0) } }
        disarmStopSignals()
        if let failure { throw .io(path: path, reason: failure) }
        // Make the rename itself durable (best effort: some filesystems refuse fsync on a directory).
        guard durable else { return }
        let dfd = PathText.withCPath(directory) { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if dfd >= 0 {
            _ = fsync(dfd)
            Glibc.close(dfd)
        }
    }

    /// Discards everything written: closes and removes the temporary file; `path` is untouched.
    /// Idempotent; called by `deinit` when `commit()` was not.
    public func abort() {
        guard encoder.handle != nil || fd >= 0 else { return }
        _ = encoder.close()
        if fd >= 0 { Glibc.close(fd); fd = -1 }
        PathText.withCPath(temporaryPath) { _ = unlink($0) }
        disarmStopSignals()
    }

    // MARK: Interrupted writers

    /// Until `commit()` or `abort()`: SIGINT, SIGTERM and SIGHUP remove the temporary file, then
    /// the process dies of the signal (a shell reports 130, 143, 129). For the one writer that
    /// is the process's work (`rack render`): one writer of the process at a time.
    public func removeOnStopSignals() {
        armedForSignals = PathText.withCPath(temporaryPath) { rack_tempfile_arm($0) } == 0
    }

    private func disarmStopSignals() {
        guard armedForSignals else { return }
        armedForSignals = false
        rack_tempfile_disarm()
    }

    /// What every temporary file's name carries: `.NAME` + this + six letters or digits.
    static let temporaryMarker = ".rack-tmp-"

    /// Removes the temporary files that writers into `path`'s directory left when they were
    /// killed: hidden files named as this writer names them (`.NAME.rack-tmp-XXXXXX`, NAME an
    /// audio file's name) that no writer holds (each holds an exclusive `flock` on its temporary
    /// file until it is done, and the kernel lets go when the process dies). Returns the paths
    /// removed.
    public static func removeStaleTemporaryFiles(besides path: String) -> [String] {
        let prefix = Destination.split(path).prefix
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: prefix.isEmpty ? "." : prefix) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where isTemporaryName(name) {
            let candidate = prefix + name
            let fd = Glibc.open(candidate, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else { continue }
            defer { Glibc.close(fd) }
            var st = Glibc.stat()
            guard fstat(fd, &st) == 0, Sys.isRegular(st), flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            if unlink(candidate) == 0 { removed.append(candidate) }
        }
        return removed
    }

    /// Whether `name` is one this writer gives its temporary files.
    static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix("."), let marker = name.range(of: temporaryMarker, options: .backwards) else { return false }
        let suffix = name[marker.upperBound...]
        let original = String(name[name.index(after: name.startIndex)..<marker.lowerBound])
        return suffix.count == 6 && suffix.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            && AudioContainer(path: original) != nil
    }

    private static func randomSuffix() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var g = SystemRandomNumberGenerator()
        return String((0..<6).map { _ in alphabet[Int(g.next(upperBound: UInt64(alphabet.count)))] })
    }
}
