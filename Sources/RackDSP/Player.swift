/// The file player on the render thread: plays the frames a reader streams into a `StereoRing`.
/// Decoding, resampling, looping and seeking happen on the reader's side; this kernel only
/// copies, with short fades so that nothing clicks: on play and stop, and when a new ring
/// replaces the old one (a new file, or the same file from a new position after a seek), the
/// two crossfade. A ring that runs dry while its reader has not marked the end is an
/// underrun: the player outputs silence for the missing frames and counts them.
///
/// The loop flag acts on what is heard: a ring that knows its pass ends (`PlayerPasses`)
/// is read up to the end of the pass being heard; there the player plays on into the next
/// pass if the ring says it loops, else it stops and waits at the end (not an underrun). Turning
/// loop on while it waits there restarts from the file's first frame, fading in.
///
/// The player never frees a ring: one it lets go of is handed back through `takeReleased()`,
/// and the owner frees it off the render thread.
public struct Player: Sendable {
    private var ring: StereoRing?
    /// The previous ring, fading out after a swap.
    private var outgoing: StereoRing?
    /// Gain of the outgoing ring (1 → 0 over the fade).
    private var outgoingGain: Float = 0
    /// A ring the player no longer uses, waiting for the owner to collect it.
    private var released: StereoRing?
    /// Whether the transport is rolling (the fade may still be moving).
    public private(set) var isPlaying = false
    private var fade: Float = 0
    private var fadeStep: Float = 1
    /// Frames the ring could not deliver while playing.
    public private(set) var underrunFrames = 0
    /// Frames taken from the current ring since it was attached, at the engine rate.
    public private(set) var framesPlayed: Int64 = 0
    /// The pass of the current ring being heard (1 = the one it starts in) and the ring frame
    /// where it ends (`Int64.max`: a ring without passes).
    private var pass: Int64 = 1
    private var passEnd: Int64 = .max
    /// True while the player stands at the end of a pass with loop off.
    public private(set) var isStoppedAtPassEnd = false

    public init() {}

    /// Sets the fade time from the rate (`PlayerTuning.fadeSeconds`).
    public mutating func prepare(sampleRate: Double, maxFrames: Int) {
        fadeStep = Float(1 / max(1, PlayerTuning.fadeSeconds * sampleRate))
    }

    /// Plays from `ring` from now on (nil detaches). A ring that was playing fades out over the
    /// fade time while the new one fades in; a third swap during a fade drops the oldest at once.
    /// - Realtime: safe
    @_noLocks
    public mutating func attach(_ newRing: StereoRing?) {
        if let current = ring, isPlaying || fade > 0 {
            if let old = outgoing { release(old) }
            outgoing = current
            outgoingGain = fade
        } else if let current = ring {
            release(current)
        }
        ring = newRing
        framesPlayed = 0
        pass = 1
        passEnd = newRing?.passes?.end(ofPass: 1) ?? .max
        isStoppedAtPassEnd = false
        if isPlaying { fade = 0 }
    }

    private mutating func release(_ r: StereoRing) {
        // One slot: the owner collects every render call, so it is free again by the next swap.
        released = r
    }

    /// The ring the player let go of, if any (the owner frees it off the render thread).
    /// - Realtime: safe
    @_noLocks
    public mutating func takeReleased() -> StereoRing? {
        let r = released
        released = nil
        return r
    }

    /// Starts or stops the transport (fading in or out).
    /// - Realtime: safe
    @_noLocks public mutating func setPlaying(_ playing: Bool) { isPlaying = playing }

    /// Starts the transport at full level from its first frame, without the fade in: for an
    /// offline render, which plays a file as it is (nothing was heard before its first frame,
    /// so there is nothing to click against; a fade would take the file's attack). Live starts,
    /// seeks and stops keep their fades (`setPlaying`, `attach`).
    /// - Realtime: safe
    @_noLocks public mutating func playFromFullLevel() {
        isPlaying = true
        fade = 1
    }

    /// True when the reader has delivered its last frame and the player has played it.
    public var isAtEnd: Bool {
        guard let ring else { return true }
        return isStoppedAtPassEnd || (ring.isFinished && ring.availableToRead == 0)
    }

    /// One call's buffers: `output`, which the player adds into, and `scratch` space of at
    /// least as many frames.
    public struct Block {
        public var output: StereoBuffers
        public var scratch: StereoBuffers

        /// - Realtime: safe
        @_noLocks @inline(__always)
        public init(output: StereoBuffers, scratch: StereoBuffers) {
            self.output = output
            self.scratch = scratch
        }
    }

    /// Restarts the fades from silence: a ring fading out goes quiet at once (and is let go at
    /// the next `process`); the attached ring fades in when the transport rolls. The rings, the
    /// transport and the counters stay.
    /// - Realtime: safe
    @_noLocks
    public mutating func reset() {
        fade = 0
        outgoingGain = 0
    }

    /// Adds the player's output to `block.output` (see the other `process`).
    /// - Realtime: safe
    @_noLocks
    public mutating func process(_ block: Block) {
        process(left: block.output.left, right: block.output.right, scratchLeft: block.scratch.left,
                scratchRight: block.scratch.right, frames: block.output.frames)
    }

    /// Adds the player's output to `left`/`right` (`scratchLeft/Right` hold ≥ `frames` floats).
    /// - Realtime: safe
    @_noLocks
    public mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                                 scratchLeft: UnsafeMutablePointer<Float>, scratchRight: UnsafeMutablePointer<Float>,
                                 frames: Int) {
        if let old = outgoing {
            let got = old.read(left: scratchLeft, right: scratchRight, frames: frames)
            var g = outgoingGain
            for i in 0..<got {
                g = max(0, g - fadeStep)
                left[i] += scratchLeft[i] * g
                right[i] += scratchRight[i] * g
            }
            outgoingGain = got < frames ? 0 : g
            var slotFree = true
            if case .some = released { slotFree = false }
            if outgoingGain == 0 && slotFree {
                released = old
                outgoing = nil
            }
        }
        guard let ring else { return }
        if !isPlaying && fade == 0 { return }
        let got = readWithinPasses(ring, left: scratchLeft, right: scratchRight, frames: frames)
        if got < frames && !ring.isFinished && !isStoppedAtPassEnd { underrunFrames &+= frames - got }
        if isPlaying && fade == 1 {
            // Rolling: a plain sum (the fade below would multiply by 1).
            for i in 0..<got {
                left[i] += scratchLeft[i]
                right[i] += scratchRight[i]
            }
            if isStoppedAtPassEnd { fade = 0 }
            return
        }
        for i in 0..<got {
            fade = isPlaying ? min(1, fade + fadeStep) : max(0, fade - fadeStep)
            left[i] += scratchLeft[i] * fade
            right[i] += scratchRight[i] * fade
        }
        if got < frames && !isPlaying { fade = 0 }
        // Stopped at a pass end: whatever comes next (loop turned on) fades in.
        if isStoppedAtPassEnd { fade = 0 }
    }

    /// Reads up to `frames` frames of `ring`, crossing pass ends while the ring loops and
    /// stopping at one when it does not. Returns the frames read (counted in `framesPlayed`).
    /// - Realtime: safe
    @_noLocks
    private mutating func readWithinPasses(_ ring: StereoRing, left: UnsafeMutablePointer<Float>,
                                           right: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        var got = 0
        // Each turn reads at least a frame or crosses a pass end; empty passes (a file of a few
        // frames resampled far down) are bounded by the turn limit.
        var turns = 2 * frames + 4
        isStoppedAtPassEnd = false
        while got < frames && turns > 0 {
            turns -= 1
            if framesPlayed >= passEnd {
                guard ring.isLooping, let passes = ring.passes else {
                    isStoppedAtPassEnd = true
                    break
                }
                pass &+= 1
                passEnd = passes.end(ofPass: pass)
                continue
            }
            let want = Int(min(Int64(frames - got), passEnd &- framesPlayed))
            let n = ring.read(left: left + got, right: right + got, frames: want)
            got += n
            framesPlayed &+= Int64(n)
            if n < want { break }
        }
        return got
    }
}

/// Constants of the player.
public enum PlayerTuning {
    /// Fade applied on play, stop and file swaps, in seconds (5 ms: below the ear's click
    /// threshold for steps, short enough to feel immediate).
    public static let fadeSeconds = 0.005
}

extension Player: Kernel {}
