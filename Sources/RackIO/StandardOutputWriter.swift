// Writing a render to standard output (`rack render IN - --type wav`), as sox and ffmpeg do:
// into a pipe, streaming, or into the file a shell redirected stdout to.

import CSndfile
import Glibc

/// What a render writes its audio to: a named file (`AudioFileWriter`, atomic) or standard
/// output (`StandardOutputWriter`, streaming).
public protocol AudioSink: AnyObject {
    /// Appends `frames` stereo frames; throws `.io` when they cannot be written.
    func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) throws(AudioFileError)
    /// Finishes the output; throws `.io` when it cannot.
    func commit(durable: Bool) throws(AudioFileError)
    /// Gives up: what can be taken back is.
    func abort()
}

extension AudioFileWriter: AudioSink {}

/// Writes a stereo stream of `frames` frames to standard output, in the container `--type`
/// names. Into a pipe (or any descriptor that cannot seek) the samples stream as they are
/// rendered: WAV with a header rack writes first (the length is known before the render starts;
/// libsndfile cannot write WAV into a pipe), Ogg by libsndfile; FLAC and MP3 are refused (into a
/// pipe libsndfile's FLAC carries no length, which sox cannot read back, and its VBR MP3 no Xing
/// header, which libsndfile reads back short). Into a regular file
/// (`> out.wav`) libsndfile writes the file as it writes any, from its first byte.
///
/// Refused: a terminal (audio is not text) and a file opened for appending. A reader that goes
/// away mid-stream (a broken pipe) ends the render with an I/O error, not a signal.
public final class StandardOutputWriter: AudioSink {
    /// The name errors give standard output, as sox and ffmpeg call it.
    public static let name = "-"
    private var encoder: SndfileEncoder
    private let seekable: Bool
    private let expectedFrames: Int64
    private let fd = STDOUT_FILENO

    /// Prepares standard output for `frames` frames of `container` at `sampleRate` (Hz) in
    /// `format`. Throws `.cannotCreate` for a terminal, an appending file, a format the
    /// container cannot hold, or a WAV beyond its 4 GiB limit.
    public init(container: AudioContainer, sampleRate: Double, format: SampleFormat, frames: Int64) throws(AudioFileError) {
        let path = Self.name
        try SndfileEncoder.check(container: container, format: format, sampleRate: sampleRate, path: path)
        seekable = try Self.seekableDestination(for: container)
        // A reader that closes the pipe makes write() fail with EPIPE instead of killing rack.
        signal(SIGPIPE, SIG_IGN)
        expectedFrames = frames
        let headerFirst = !seekable && container == .wav
        if headerFirst {
            guard let header = WAVLayout.header(format: format, sampleRate: Int(sampleRate.rounded()), frames: frames) else {
                throw .cannotCreate(path: path, reason: "a WAV stream cannot exceed 4 GiB; use --type flac")
            }
            try Self.writeAll(header, to: fd)
        }
        encoder = try SndfileEncoder(fd: fd, container: container, format: format, sampleRate: sampleRate,
                                     raw: headerFirst, path: path)
    }

    /// Whether standard output is a regular file (written from its first byte) rather than a
    /// pipe; throws `.cannotCreate` for a terminal, a file opened for appending, and the
    /// containers libsndfile cannot stream into a pipe.
    private static func seekableDestination(for container: AudioContainer) throws(AudioFileError) -> Bool {
        let fd = STDOUT_FILENO
        if isatty(fd) == 1 {
            throw .cannotCreate(path: name, reason: "standard output is a terminal; redirect it to a file or a pipe")
        }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0 else { throw .cannotCreate(path: name, reason: Sys.message(errno)) }
        let seekable = Sys.isRegular(st)
        if seekable, fcntl(fd, F_GETFL) & O_APPEND != 0 || lseek(fd, 0, SEEK_CUR) != 0 {
            throw .cannotCreate(path: name, reason: "standard output is a file opened for appending (>>); use > or name the file")
        }
        if !seekable && (container == .flac || container == .mp3) {
            // libsndfile writes their length into a header it finishes last: into a pipe, FLAC has
            // none (sox loses sync on it) and VBR MP3 no Xing header (read back 5.5 s of 10).
            throw .cannotCreate(path: name, reason: "\(container == .flac ? "FLAC" : "MP3") cannot be streamed into a pipe; "
                                + "use --type wav or ogg, or redirect to a file")
        }
        return seekable
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32) throws(AudioFileError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .io(path: name, reason: "write failed: \(Sys.message(errno))") }
            done += n
        }
    }

    public func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) throws(AudioFileError) {
        if let refusal = encoder.refusal(adding: frames) { throw .io(path: Self.name, reason: refusal) }
        try encoder.write(left: left, right: right, frames: frames, path: Self.name)
    }

    /// Finishes the stream (libsndfile's last frames; for a redirected float WAV, rack's header);
    /// `durable` fsyncs a redirected file.
    public func commit(durable: Bool) throws(AudioFileError) {
        let float = encoder.sampleFormat == .float && encoder.container == .wav
        let frames = encoder.framesWritten, rate = Int(encoder.sampleRate)
        if let failure = encoder.close() { throw .io(path: Self.name, reason: failure) }
        if seekable && float {
            // Standard output is open for writing only: the header is read through a second descriptor.
            let reader = Glibc.open("/proc/self/fd/\(fd)", O_RDONLY | O_CLOEXEC)
            if reader >= 0 {
                _ = WAVLayout.rewriteFloatHeader(fd: fd, readFD: reader, sampleRate: rate, frames: frames)
                Glibc.close(reader)
            }
        }
        if seekable && durable && fsync(fd) != 0 { throw .io(path: Self.name, reason: "fsync: " + Sys.message(errno)) }
        if frames != expectedFrames {
            throw .io(path: Self.name, reason: "wrote \(frames) frames where the stream's header announced \(expectedFrames)")
        }
    }

    /// Stops writing. What a pipe's reader has already read cannot be taken back.
    public func abort() { _ = encoder.close() }

    deinit { abort() }
}
