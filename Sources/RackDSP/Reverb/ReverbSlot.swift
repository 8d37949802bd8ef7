/// One network of `Reverb` with its own input history, and where it is in its life: the
/// reverb keeps `SpillOverTuning.slots` of these so that a room change can let the old room
/// ring out (spill-over) while the new one takes the input.
///
///     clean ──(a change picks it)──► live ──(the next change)──► spilling ──(tail below −120 dBFS)──► clearing ──► clean
///                                     ▲                              │  └──(a third room needs its slot)──► cutting (20 ms fade) ──► clearing
///                                     └──(the same room again)───────┘
///
/// Its history holds the input scaled by the slot's input gain (1 while live, the crossfade
/// while the input moves to another room, 0 afterwards), so the network and its pre-delay and
/// early taps keep exactly what they had been fed: the tail rings out as it would in the
/// room. A slot is cleared in bounded steps (`Reverb.clearStepFloats` floats a group) before
/// it is used again, so no room change ever zeroes whole delay memories at once.
struct ReverbSlot {
    enum Phase: Int {
        /// All state 0, not rendered; ready for a room.
        case clean
        /// The heard room: gets the input (fading in during a crossfade).
        case live
        /// A former room: its input faded out (or is fading out); its tail rings at full level.
        case spilling
        /// A tail cut short: output fading to 0 over `SpillOverTuning.cutSeconds`.
        case cutting
        /// Being zeroed, a bounded number of floats a group.
        case clearing
    }

    var core = ReverbCore()
    /// Planar input history (left, then right), `Reverb.historyLength + 8` floats each, the
    /// last 8 mirroring the first 8.
    var history: UnsafeMutablePointer<Float>? = nil
    var phase = Phase.clean
    /// Spilling: consecutive groups whose output stayed below the silence level.
    var quietGroups = 0
    /// Cutting: samples of the output fade done.
    var cutDone = 0
    /// Clearing: floats zeroed so far (the core's delay memory, then the history).
    var clearCursor = 0
    /// When it stopped being live (larger: more recent); the oldest tail is cut first.
    var spillOrder = 0
    /// A tail bridging a longer room's late onset: groups left before it takes `holdRoom`'s
    /// decay (0: not holding; see `SpillOverTuning.holdDecaySeconds`).
    var holdGroups = 0
    var holdRoom: Room = .default
    /// False while every float of its memory is still 0 since it was allocated or last cleared
    /// (nothing has rendered into it): clearing it at once then writes nothing.
    var touched = false

    /// True in phase `p` (compares raw values: the synthesised `==` is a generic call).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func isIn(_ p: Phase) -> Bool { phase.rawValue == p.rawValue }
}

/// The slot whose input fades out during a running input crossfade (`Reverb.fadingOut`).
enum FadingOut {
    /// No crossfade is running.
    case none
    /// Slot `index` (of `Reverb.slots`) is the old room, its input fading out.
    case slot(Int)

    /// True when slot `s` is the one fading out.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func isSlot(_ s: Int) -> Bool {
        if case .slot(let index) = self { return index == s }
        return false
    }
}

/// Constants of room changes (spill-over), in seconds and dBFS.
public enum SpillOverTuning {
    /// Networks kept: the heard room, the previous room's tail, and a third that is either
    /// clean (ready for the next change) or being cut and cleared. Hardware reverbs keep one
    /// previous tail as well (a "spill-over" of the previous patch).
    static var slots: Int { @inline(__always) @_noLocks get { 3 } }
    /// An older tail that must make room for a new change fades out over this long (s): long
    /// enough not to click, short enough that the slot is soon ready again.
    public static let cutSeconds = 0.02
    /// A spilling tail is over when its output stays below this level (−120 dBFS, linear)...
    public static let silenceLevel: Float = 1e-6
    /// ...for this long (s).
    public static let silenceSeconds = 0.01
    /// A slot is cleared within this long (s), in equal steps per 8-sample group.
    public static let clearSeconds = 0.01
    /// When the old tail takes the new room's longer decay, its input fades out over this
    /// long (s; at most the crossfade) instead of the whole crossfade: with the longer decay it
    /// would otherwise keep gathering energy and swell (+4 dB from smallRoom to cathedral).
    public static let matchedFadeOutSeconds = 0.01
    /// Mid-band decay (s) of an old tail while it bridges the new room's late onset: long
    /// enough to lose < 0.2 dB over the bridge (the longest, smallRoom → cathedral, is ~0.13 s),
    /// a decay like any other (every loop gain below 1, so the network stays stable).
    public static let holdDecaySeconds = 60.0
    // Decay matching: when the new room decays more slowly than the old, the old tail takes
    // the new room's decay (mid-band and low T60, damping and crossover; delays, diffusion
    // and loudness stay the old room's) at the change, as a running reverb's tail does when
    // its decay time is turned up, and its input fades out over `matchedFadeOutSeconds`. The
    // tail then holds the wet level while the new room fills. A shorter new room lets the old
    // tail ring out at its own rate.
    // Bridging: the new room's late reverb starts only after its input has come through the
    // crossfade, its pre-delay and its input diffusers (an allpass delays energy by its own
    // delay on average; a cathedral's four take ~54 ms, its pre-delay 45 ms), while the old
    // tail's input stopped through its own shorter ones. For that gap (`Reverb.bridgeFrames`)
    // the old tail decays at `holdDecaySeconds`, then takes the new room's decay: its energy
    // hands over to the new room's build-up as a running reverb's does (−1.7 dB from
    // smallRoom to cathedral without the bridge, the tail losing 12 dB/s meanwhile).
}
