/// The file player on the render thread: plays the frames a reader streams into a `StereoRing`.
/// Decoding, resampling, looping and seeking happen on the reader's side; this kernel only
/// copies, with a short fade on play and stop so that transport changes never click. A ring
/// that runs dry while the reader has not marked the end is an underrun: the player outputs
/// silence for the missing frames and counts them.
public struct Player: Sendable {
    private var ring: StereoRing?
    /// Whether the transport is rolling (the fade may still be moving).
    public private(set) var isPlaying = false
    private var fade: Float = 0
    private var fadeStep: Float = 1
    /// Frames the ring could not deliver while playing.
    public private(set) var underrunFrames = 0
    /// Frames played since the last `attach`, at the engine rate.
    public private(set) var framesPlayed: Int64 = 0

    public init() {}

    /// Sets the fade time from the rate: 5 ms, long enough not to click, short enough to feel
    /// immediate (`PlayerTuning.fadeSeconds`).
    public mutating func prepare(sampleRate: Double, maxFrames: Int) {
        fadeStep = Float(1 / max(1, PlayerTuning.fadeSeconds * sampleRate))
    }

    /// Plays from `ring` (nil detaches). The owner keeps the ring alive until it is detached.
    /// - Realtime: safe
    @_noLocks public mutating func attach(_ ring: StereoRing?) {
        self.ring = ring
        framesPlayed = 0
    }

    /// Starts or stops the transport (fading in or out).
    /// - Realtime: safe
    @_noLocks public mutating func setPlaying(_ playing: Bool) { isPlaying = playing }

    /// True when the reader has delivered its last frame and the player has played it.
    public var isAtEnd: Bool {
        guard let ring else { return true }
        return ring.isFinished && ring.availableToRead == 0
    }

    /// Adds the player's output to `left`/`right` (`scratchLeft/Right` hold ≥ `frames` floats).
    /// - Realtime: safe
    @_noLocks
    public mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                                 scratchLeft: UnsafeMutablePointer<Float>, scratchRight: UnsafeMutablePointer<Float>,
                                 frames: Int) {
        guard let ring else { return }
        if !isPlaying && fade == 0 { return }
        let got = ring.read(left: scratchLeft, right: scratchRight, frames: frames)
        if got < frames && !ring.isFinished { underrunFrames &+= frames - got }
        framesPlayed &+= Int64(got)
        let target: Float = isPlaying ? 1 : 0
        for i in 0..<got {
            if fade != target { fade = isPlaying ? min(1, fade + fadeStep) : max(0, fade - fadeStep) }
            left[i] += scratchLeft[i] * fade
            right[i] += scratchRight[i] * fade
        }
        if got < frames && !isPlaying { fade = 0 }
    }
}

/// Constants of the player.
public enum PlayerTuning {
    /// Fade applied on play and stop, in seconds (5 ms: below the ear's click threshold for
    /// steps, short enough to feel immediate).
    public static let fadeSeconds = 0.005
}
