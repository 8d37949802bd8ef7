import Foundation
import RackDSP
import Synchronization

/// A file streamed into a `StereoRing` by its own reader thread: decoded and resampled to the
/// engine rate ahead of the player, so the render thread never waits for the disk. Memory is
/// bounded by the ring (`PlayerStreamTuning.ringSeconds`), whatever the file's length.
///
/// Lifecycle (control thread): `init` opens the file, seeks, pre-fills the ring and starts the
/// reader; the engine gets `ring`; when the player has let go of the ring (the engine says so),
/// `stop()` ends the thread and the ring is freed by `deinit`.
public final class PlayerStream: @unchecked Sendable {
    public let path: String
    public let ring: StereoRing
    /// Where in the file (seconds) the ring's first frame comes from.
    public let startSeconds: Double
    /// Length of the file in seconds.
    public let durationSeconds: Double
    public let sampleRate: Double
    private let reader: ResamplingReader
    private let stopFlag = Atomic<Bool>(false)
    private let loopFlag: Atomic<Bool>
    private let failure = Mutex<AudioFileError?>(nil)
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    /// Opens `path` for playback at `sampleRate` from `startSeconds`. Errors (missing,
    /// not a regular file, not audio, more than two channels, empty) are thrown at once.
    public init(path: String, sampleRate: Double, startSeconds: Double = 0, loop: Bool) throws(AudioFileError) {
        self.path = path
        self.sampleRate = sampleRate
        reader = try ResamplingReader(path: path, targetRate: sampleRate)
        durationSeconds = reader.info.durationSeconds
        let start = min(max(0, startSeconds), max(0, durationSeconds))
        self.startSeconds = start
        reader.loop = loop
        loopFlag = Atomic(loop)
        if start > 0 { try reader.seek(seconds: start) }
        ring = StereoRing(minimumCapacity: Int(PlayerStreamTuning.ringSeconds * sampleRate))
        // Pre-fill so that playback starts without an underrun.
        try fill(upTo: Int(PlayerStreamTuning.prefillSeconds * sampleRate))
        let t = Thread { [unowned self] in self.run() }
        t.name = "rack-player"
        t.qualityOfService = .userInitiated
        thread = t
        t.start()
    }

    deinit {
        stop()
        ring.deallocate()
    }

    /// False once the engine has let go of the ring (the control thread then frees the stream).
    public var isAttached = true

    /// Loops at the end of the file (seamlessly) when true.
    public var loop: Bool {
        get { loopFlag.load(ordering: .relaxed) }
        set { loopFlag.store(newValue, ordering: .relaxed) }
    }

    /// The read error that ended the stream early, if any (truncated or corrupt data).
    public var error: AudioFileError? { failure.withLock { $0 } }

    /// Ends the reader thread and waits for it.
    public func stop() {
        guard thread != nil else { return }
        stopFlag.store(true, ordering: .relaxed)
        done.wait()
        thread = nil
    }

    private let chunk = 4096
    private lazy var left = [Float](repeating: 0, count: chunk)
    private lazy var right = [Float](repeating: 0, count: chunk)

    /// Reads until the ring holds `frames` (or the stream ended). Returns false at the end.
    @discardableResult
    private func fill(upTo frames: Int) throws(AudioFileError) -> Bool {
        while ring.availableToRead < frames && !ring.isFinished {
            let want = min(chunk, ring.availableToWrite)
            if want == 0 { return true }
            reader.loop = loopFlag.load(ordering: .relaxed)
            let got = try left.withUnsafeMutableBufferPointer { l throws(AudioFileError) in
                try right.withUnsafeMutableBufferPointer { r throws(AudioFileError) in
                    try reader.read(left: l.baseAddress!, right: r.baseAddress!, frames: want)
                }
            }
            if got == 0 {
                ring.setFinished(true)
                return false
            }
            left.withUnsafeBufferPointer { l in right.withUnsafeBufferPointer { r in
                _ = ring.write(left: l.baseAddress!, right: r.baseAddress!, frames: got)
            }}
        }
        return true
    }

    private func run() {
        defer { done.signal() }
        let target = ring.capacity - chunk
        while !stopFlag.load(ordering: .relaxed) {
            do {
                try fill(upTo: target)
            } catch {
                failure.withLock { $0 = error }
                ring.setFinished(true)
            }
            // Sleep a fraction of the ring's length: the ring never runs dry between wakes.
            usleep(useconds_t(PlayerStreamTuning.pollSeconds * 1e6))
        }
    }
}

/// Constants of the streaming player, in seconds.
public enum PlayerStreamTuning {
    /// Ring length: how far ahead the reader decodes (2 × 1 s × 4 bytes × rate of memory).
    public static let ringSeconds = 1.0
    /// Decoded before playback starts.
    public static let prefillSeconds = 0.25
    /// The reader's wake-up period.
    public static let pollSeconds = 0.01
}
