/// The `predelay` control of `Reverb` (`ReverbShape.predelaySeconds`): how much later than the
/// room's own pattern the reverb's first energy comes. Every read of the input history (the
/// late input's smoother and the early taps) reaches back this much further, so the whole wet
/// pattern moves by the setting, early reflections and late reverb alike, and the history rings
/// are `maximumSeconds` longer.
///
/// A change never moves a read position while it reads (that would be varispeed: a pitch sweep
/// while the delay moves, a click where it jumps). It crossfades between two fixed read
/// positions, the old delay's and the new one's, over `crossfadeSeconds`, with an equal-power
/// law whose speed is zero at both ends: g_new = sin(π/2·s), g_old = cos(π/2·s),
/// s = sin²(π/2·x), x from 0 to 1 over the crossfade (a sine under it keeps its pitch; its
/// phase moves once, within the crossfade). A change during a crossfade waits for it to end and
/// then goes straight to the latest setting (a ramp becomes a few crossfades, never a
/// slide). The first setting after a reset, when the history is silent, is taken at once.
/// Chosen by measurement over a sweep: a read position moving 120 ms in a 20 ms ramp would
/// read at −5 times speed (a pitch shift, Doppler), while these crossfades leave the default
/// ramp's splatter equal to the 200 ms ramp's (−111.6 dB re a 1 kHz sine above 8 kHz,
/// `ShapingParameterTests.testRampsOfTheNewControlsDoNotSplatter`).
///
/// Per 8-sample group (`Reverb.renderGroup` steps it at each group start), so the result does
/// not depend on the block size.
struct ReverbPredelay {
    /// Longest pre-delay (s): the top of `ReverbShape.predelayRange`.
    static var maximumSeconds: Double { @inline(__always) @_noLocks get { ReverbShape.predelayRange.upperBound } }
    /// Length of a change's crossfade (s): 20 ms, the engine's default ramp; long against the
    /// period of any audible pitch (its gain curve's spectrum ends far below the splatter band).
    static var crossfadeSeconds: Double { @inline(__always) @_noLocks get { 0.02 } }

    /// The delay heard (samples; during a crossfade: the one fading out).
    var current = 0
    /// The delay being faded to (equal to `current` when no crossfade runs).
    var next = 0
    /// The latest setting (samples).
    var target = 0
    /// Samples of the running crossfade done, and its length (a multiple of 8).
    var fadeDone = 0
    var fadeFrames = 8
    /// False from a reset until the first group is rendered: a setting is then taken at once.
    var sounding = false

    /// The crossfade's length at `fs` Hz.
    mutating func prepare(sampleRate fs: Double) {
        fadeFrames = max(8, 8 * Int((Self.crossfadeSeconds * fs / 8).rounded()))
    }

    /// The longest delay (samples) at `fs` Hz: what the history must hold beyond the room's own.
    static func maximumFrames(sampleRate fs: Double) -> Int {
        Int((maximumSeconds * fs).rounded()) + 1
    }

    /// Silence: the latest setting is heard at once.
    @_noLocks @inline(__always)
    mutating func reset() {
        current = target
        next = target
        fadeDone = 0
        sounding = false
    }

    /// Takes a setting (s, within `ReverbShape.predelayRange`) at `fs` Hz.
    @_noLocks @inline(__always)
    mutating func set(seconds: Double, sampleRate fs: Double) {
        target = Int(seconds * fs + 0.5)
        if !sounding { reset() }
    }

    /// True when no crossfade runs or waits: every group reads at `current`.
    var isSteady: Bool { @_noLocks @inline(__always) get { current == next && target == current } }

    /// The reads of the group starting now, then one group on: the delay to read (and, during a
    /// crossfade, the delay fading out with the two gains of the group's samples).
    @_noLocks @inline(__always)
    mutating func step() -> PredelayReads {
        sounding = true
        if current == next && target != current {
            next = target
            fadeDone = 0
        }
        guard current != next else { return PredelayReads(delay: current) }
        let j = SIMD8<Float>(1, 2, 3, 4, 5, 6, 7, 8)
        let x = (Float(fadeDone) + j) * (1 / Float(fadeFrames))
        let root = Reverb.quarterSine(x)
        let s = root * root
        let reads = PredelayReads(delay: next, fadingDelay: current, gain: Reverb.quarterSine(s),
                                  fadingGain: Reverb.quarterSine(1 - s))
        fadeDone &+= 8
        if fadeDone >= fadeFrames {
            current = next
            fadeDone = 0
        }
        return reads
    }
}

/// One group's reads of the history for the pre-delay: at `delay` with `gain`, plus, during a
/// crossfade, at `fadingDelay` with `fadingGain` (per sample of the group).
struct PredelayReads {
    var delay: Int
    var fadingDelay: Int
    var gain: SIMD8<Float>
    var fadingGain: SIMD8<Float>
    var fading: Bool

    @_noLocks @inline(__always)
    init(delay: Int) {
        self.delay = delay
        fadingDelay = delay
        gain = SIMD8(repeating: 1)
        fadingGain = .zero
        fading = false
    }

    @_noLocks @inline(__always)
    init(delay: Int, fadingDelay: Int, gain: SIMD8<Float>, fadingGain: SIMD8<Float>) {
        self.delay = delay
        self.fadingDelay = fadingDelay
        self.gain = gain
        self.fadingGain = fadingGain
        fading = true
    }
}

/// Where a group's input lives: planar history rings (right = left + stride), the index of the
/// group's first sample, and the pre-delay's reads (`ReverbPredelay`): every load reaches back
/// a further `reads.delay` samples, and during a pre-delay crossfade it mixes that read with
/// the one at `reads.fadingDelay`, sample by sample.
struct HistoryView {
    let base: UnsafeMutablePointer<Float>
    let stride: Int
    let mask: Int
    let write: Int
    let reads: PredelayReads

    @_noLocks @inline(__always)
    init(base: UnsafeMutablePointer<Float>, stride: Int, mask: Int, write: Int,
         reads: PredelayReads = PredelayReads(delay: 0)) {
        (self.base, self.stride, self.mask, self.write, self.reads) = (base, stride, mask, write, reads)
    }

    /// The 8 samples of `channel` (0: L, 1: R) starting `delay` samples (plus the pre-delay)
    /// before the group.
    @_noLocks @inline(__always)
    func load(delay: Int, channel: Int) -> SIMD8<Float> {
        let heard = loadRaw(delay &+ reads.delay, channel: channel)
        guard reads.fading else { return heard }
        return reads.gain * heard + reads.fadingGain * loadRaw(delay &+ reads.fadingDelay, channel: channel)
    }

    @_noLocks @inline(__always)
    func loadRaw(_ delay: Int, channel: Int) -> SIMD8<Float> {
        let p = base + (channel &* stride &+ ((write &- delay) & mask))
        return UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
}
