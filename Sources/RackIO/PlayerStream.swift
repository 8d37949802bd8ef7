import Foundation
import RackDSP
import Synchronization

/// A file streamed into a `StereoRing` by its own reader thread: decoded and resampled to the
/// engine rate ahead of the player, so the render thread never waits for the disk. Memory is
/// bounded by the ring (`PlayerStreamTuning.ringSeconds`), whatever the file's length.
///
/// The reader always runs through the file as one seamless loop; the ring carries where each
/// pass ends (`PlayerPasses`) and the loop flag, and the player decides at each pass end
/// whether to play on: so the flag acts on what is heard, not on what was decoded ahead.
///
/// Lifecycle (control thread): `init` opens the file, seeks, pre-fills the ring and starts the
/// reader thread; the engine gets `ring`. The thread owns what it reads with (the file, the
/// converter, the ring), not the stream: when the control thread drops the stream — once the
/// engine has let go of the ring, or at once if the ring never reached the engine — the thread
/// is told to end, and it frees the file descriptor, the converter and the ring as it exits,
/// off the render thread, without the control thread waiting for it. `stop()` (at exit) also
/// waits.
public final class PlayerStream: @unchecked Sendable {
    public let path: String
    public let ring: StereoRing
    /// Where in the file (seconds) the ring's first frame comes from.
    public let startSeconds: Double
    /// Length of the file in seconds.
    public let durationSeconds: Double
    public let sampleRate: Double
    private let feeder: StreamFeeder
    private var stopped = false

    /// Opens `path` for playback at `sampleRate` from `startSeconds`. Errors (missing,
    /// not a regular file, not audio, more than two channels, empty) are thrown at once; a read
    /// error the reader thread meets later is kept (`error`) and `failed` is called on that
    /// thread (the control thread's wake).
    public init(path: String, sampleRate: Double, startSeconds: Double = 0, loop: Bool,
                failed: @escaping @Sendable () -> Void = {}) throws(AudioFileError) {
        self.path = path
        self.sampleRate = sampleRate
        let reader = try ResamplingReader(path: path, targetRate: sampleRate)
        durationSeconds = reader.info.durationSeconds
        let start = min(max(0, startSeconds), max(0, durationSeconds))
        self.startSeconds = start
        // The reader loops seamlessly for ever; the player stops at a pass end when the ring
        // says the stream does not loop.
        reader.loop = true
        if start > 0 { try reader.seek(seconds: start) }
        // The file frame the reader starts at (`ResamplingReader.seek`'s rounding).
        let startFrame = min(max(Int64((start * reader.info.sampleRate).rounded()), 0), reader.info.frames)
        let passes = PlayerPasses(fileFrames: reader.info.frames, sourceRate: reader.info.sampleRate,
                                  targetRate: sampleRate, startFileFrame: startFrame)
        let ring = StereoRing(minimumCapacity: Int(PlayerStreamTuning.ringSeconds * sampleRate), passes: passes)
        ring.isLooping = loop
        self.ring = ring
        feeder = StreamFeeder(reader: reader, ring: ring, sampleRate: sampleRate, failed: failed)
        // Pre-fill so that playback starts without an underrun (a failure frees the feeder,
        // the ring and the file with it: no thread was started).
        try feeder.fill(upTo: Int(PlayerStreamTuning.prefillSeconds * sampleRate))
        // The thread holds the feeder (strongly), never the stream.
        NamedThread.start("rack-player", qualityOfService: .userInitiated) { [feeder] in feeder.run() }
    }

    deinit {
        // Do not wait: the thread frees everything as it ends.
        feeder.requestStop()
    }

    /// False once the engine has let go of the ring (the control thread then frees the stream).
    public var isAttached = true

    /// Whether the player plays on at the end of the file (seamlessly) or stops there.
    /// Acts on what is heard: turning it off stops at the end of the pass being heard, turning
    /// it on while stopped at the end plays the file again from its start.
    public var loop: Bool {
        get { ring.isLooping }
        set { ring.isLooping = newValue }
    }

    /// The read error that ended the stream early, if any (truncated or corrupt data).
    public var error: AudioFileError? { feeder.failure.withLock { $0 } }

    /// The read error that ended the stream early, the first time it is asked for after the
    /// reader met it; nil before, and after it has been taken once (the control loop reports it).
    public func takeUnreportedError() -> AudioFileError? {
        guard let error, !errorReported else { return nil }
        errorReported = true
        return error
    }
    private var errorReported = false

    /// Position heard, in seconds of the file: from the frames the player took from the ring.
    /// At the end of a pass with loop off, the file's duration.
    public var positionSeconds: Double {
        guard let passes = ring.passes else { return startSeconds }
        return passes.fileSeconds(afterFrames: Int64(ring.framesRead), stoppedAtEnd: !loop)
    }

    /// Ends the reader thread and waits for it (at exit). Dropping the stream ends it too,
    /// without waiting.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        feeder.requestStop()
        feeder.waitUntilEnded()
    }
}

/// What the reader thread of a `PlayerStream` reads with, and owns: the reader (file and
/// converter), the ring and two chunk buffers, all freed when the last of the thread and the
/// stream lets go (`deinit`).
private final class StreamFeeder: @unchecked Sendable {
    let reader: ResamplingReader
    let ring: StereoRing
    let failure = Mutex<AudioFileError?>(nil)
    private let stopFlag = Atomic<Bool>(false)
    /// Signalled to end the thread's wait early (stop).
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled when the thread has ended.
    private let ended = DispatchSemaphore(value: 0)
    private let chunk = 4096
    private let buffer: UniqueStereo
    /// The ring's rate (Hz): the render thread takes this many frames a second while it plays.
    private let sampleRate: Double
    /// Called on the thread when a read fails.
    private let failed: @Sendable () -> Void

    init(reader: ResamplingReader, ring: StereoRing, sampleRate: Double, failed: @escaping @Sendable () -> Void) {
        self.reader = reader
        self.ring = ring
        self.sampleRate = sampleRate
        self.failed = failed
        buffer = UniqueStereo(frames: chunk)
    }

    deinit {
        ring.deallocate()
    }

    func requestStop() {
        stopFlag.store(true, ordering: .releasing)
        wake.signal()
    }

    func waitUntilEnded() { ended.wait() }

    /// Reads until the ring holds `frames` (or the stream ended with an error, or was told to
    /// stop: a retired stream's thread ends after the chunk it is reading).
    func fill(upTo frames: Int) throws(AudioFileError) {
        while ring.availableToRead < frames && !ring.isFinished && !stopFlag.load(ordering: .acquiring) {
            let want = min(chunk, ring.availableToWrite)
            if want == 0 { return }
            let got = try reader.read(left: buffer.left.base, right: buffer.right.base, frames: want)
            if got == 0 {
                ring.setFinished(true)
                return
            }
            ring.write(left: buffer.left.base, right: buffer.right.base, frames: got)
        }
    }

    /// The thread: keeps the ring topped up until told to stop.
    func run() {
        defer { ended.signal() }
        let target = ring.capacity - chunk
        while !stopFlag.load(ordering: .acquiring) {
            do {
                try fill(upTo: target)
            } catch {
                failure.withLock { $0 = error }
                ring.setFinished(true)
                failed()
            }
            _ = wake.wait(timeout: .now() + sleepSeconds())
        }
    }

    /// How long the thread may sleep: until what the ring holds has fallen to
    /// `PlayerStreamTuning.refillSeconds` at the rate the render thread takes it (it never takes
    /// faster), within the tuning's shortest and longest sleep. A finished ring (a read error)
    /// is never topped up again: the longest sleep.
    private func sleepSeconds() -> Double {
        guard !ring.isFinished else { return PlayerStreamTuning.longestSleepSeconds }
        let lasts = Double(ring.availableToRead) / sampleRate - PlayerStreamTuning.refillSeconds
        return min(max(lasts, PlayerStreamTuning.shortestSleepSeconds), PlayerStreamTuning.longestSleepSeconds)
    }
}

/// Constants of the streaming player, in seconds.
public enum PlayerStreamTuning {
    /// Ring length: how far ahead the reader decodes (2 × 1 s × 4 bytes × rate of memory).
    public static let ringSeconds = 1.0
    /// Decoded before playback starts.
    public static let prefillSeconds = 0.25
    /// The reader tops the ring up once it holds no more than this: half the ring, so a read
    /// that takes half a second (a busy machine, a slow disk) still finds sound in the ring.
    public static let refillSeconds = 0.5 * ringSeconds
    /// The reader's shortest sleep between top-ups (the period it used to wake at always): a
    /// ring drained below `refillSeconds` is topped up at least this often.
    public static let shortestSleepSeconds = 0.01
    /// The reader's longest sleep: half the ring, so that a ring nobody takes from (the
    /// transport stopped) costs two wakes a second, and one the render thread drains is looked
    /// at before it falls below `refillSeconds` (a full ring holds the ring's length).
    public static let longestSleepSeconds = 0.5 * ringSeconds
}
