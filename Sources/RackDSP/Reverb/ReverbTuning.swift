/// Every constant of the reverb (`Reverb`), in SECONDS or HERTZ, never in samples: `Reverb.prepare`
/// converts them at the running sample rate (as zita-rev1 keeps its delays in seconds and scales
/// them by `fsamp`), so the rooms sound and decay the same at 44.1, 48 and 96 kHz.
///
/// Provenance of the design (ideas, not code):
/// - Feedback delay network with an orthogonal (Hadamard) feedback matrix and a per-line
///   absorption gain g_i = 10^(−3·τ_i/T60), τ_i the line's loop delay: J.-M. Jot & A. Chaigne,
///   "Digital delay networks for designing artificial reverberators", AES 90th Conv., 1991.
///   With g_i tied to τ_i every mode of the network decays at the same rate (Jot's criterion).
/// - Eight lines, a Schroeder allpass diffuser inside every line (the diffuser's delay counts as
///   part of the line's loop delay), a two-band RT60 (low / mid, split at a crossover) and an HF
///   damping frequency defined as "the frequency at which T60 is half the mid-band T60":
///   F. Adriaensen, zita-rev1 (documentation and quick guide), and the Faust port
///   `zita_rev_fdn` in faust's reverbs.lib, which documents the same parameters.
/// - First-order HF absorption filter per line, designed so its magnitude at one frequency hits
///   the gain needed for that frequency's T60: J. O. Smith, "Physical Audio Signal Processing",
///   section "First-Order Delay-Filter Design".
/// - Mutually prime delay lengths (reduce coinciding echoes and mode clustering): M. R.
///   Schroeder, "Natural sounding artificial reverberation", JAES 10(3), 1962.
///
/// The numeric values below are our own (not zita-rev1's): loop delays spread roughly
/// geometrically over one octave with irregular steps, diffuser delays ~8–18 % of the loops,
/// input diffusers of 4–16 ms (Dattorro's range) scaled like the rooms;
/// the room parameters are design choices within the usual ranges (zita-rev1's defaults are a
/// 200 Hz crossover and a 6 kHz damping frequency), and each room's decay is calibrated against
/// the broadband targets in `Room.targetDecaySeconds` (`RoomDefinition.calibration`). The rooms
/// themselves (size, diffusion, damping, …) are the rows of `RoomDefinition.table`.
enum ReverbTuning {
    // MARK: Network geometry at size 1.0 (a large hall)

    /// Loop delay of each of the 8 lines at `RoomDefinition.size == 1` (s), diffuser included.
    /// Spread over ~101–189 ms (ratio ≈ 1.87) with irregular steps so no two are near a simple
    /// ratio; the order is shuffled so the Hadamard butterflies pair long with short lines.
    /// `prepare` rounds each to samples and moves it to the next prime (Schroeder 1962).
    static let loopDelaySeconds: [Double] = [
        0.137_9, 0.101_3, 0.172_9, 0.123_7, 0.189_3, 0.146_1, 0.113_9, 0.161_7,
    ]

    /// Delay of the Schroeder allpass diffuser in each line at size 1 (s). Part of the loop
    /// delay above (the plain delay line is the remainder). Not proportional to the loops, so
    /// the diffusers' comb spacings differ from line to line.
    static let diffuserDelaySeconds: [Double] = [
        0.019_7, 0.013_1, 0.023_9, 0.016_3, 0.026_9, 0.021_1, 0.011_3, 0.017_9,
    ]

    /// Delay of each line's second diffuser over its first's (dimensionless): the second
    /// allpass that runs in each loop at decays far beyond the room's own
    /// (`ReverbCoefficients.secondDiffuserDelay`, `ReverbModulation`). Cathedral at 20 s mixed
    /// at 140/168/141 ms (44.1/48/96 kHz) with 0.5, at 144/179/164 ms with 0.375 and
    /// 137/165/171 ms with 0.6 (`ReverbDecayQualityTests`).
    static let secondDiffuserFraction = 0.5
    /// Smallest diffuser delay (s), whatever the room size: keeps the allpass a diffuser (a few
    /// ms of comb spacing) rather than a one-sample phase shifter in the smallest rooms.
    static let minimumDiffuserSeconds = 0.002

    /// Input bandwidth of the late reverb (s): its input is smoothed by a boxcar of
    /// B = 2·round(this·fs) samples, applied twice (a triangle of 2B − 1 taps). At 44.1/48 kHz
    /// that is (¼, ½, ¼): −6 dB at 12 kHz, zero at Nyquist; at 88.2/96 kHz, 7 taps with nearly
    /// the same audible-band response (−7.4 dB at 12 kHz) and a deep stop band from 24 kHz up,
    /// so the rooms decay alike at every rate. An "input bandwidth" filter as in J. Dattorro,
    /// "Effect Design, Part 1", JAES 45(9), 1997: the tank is fed a slightly darker signal,
    /// which keeps the broadband decay curve closer to a straight line (less energy in the
    /// top octave, which dies first).
    static let inputSmoothingSeconds = 1.0 / 48_000

    /// The loop's HF damping frequency (where a line's one-pole makes T60 half the mid band's)
    /// over the `damping` control's frequency (dimensionless). The documentation measures `damping`
    /// per octave: the octave band centred at twice it decays in half the mid band's time. The
    /// one-pole's loss in dB grows about as f², so within that octave the lower half decays
    /// more slowly and dominates the band's decay curve: with the half-decay point at exactly
    /// 2× the band measured 0.585 of the mid band (mediumChamber, decay 2 s, damping 1 kHz,
    /// T20). Modelling the band as one frequency f_eff with 1/T ∝ 1 + (f_eff/f_half)² puts
    /// f_eff at 0.84 of the band's centre, so the half-decay point goes there: 1.7× the
    /// control's frequency (`ReverbShapeTests.testDampingHalvesTheDecayAtTwiceItsFrequency`).
    static let halfDecayPerDamping = 1.7

    /// The grid of `RoomDefinition.decayCorrection`: 16 nodes spaced evenly in log decay over
    /// `ReverbShape.decayRange` (0.1 … 30 s, a factor of about 1.46 from node to node), node k at
    /// `decayCorrectionFirstSeconds · 2^(k · decayCorrectionOctavesPerNode)` s. (Computed
    /// properties: the render path reads them.)
    static var decayCorrectionFirstSeconds: Double { @inline(__always) @_noLocks get { 0.1 } }
    /// log2(30/0.1)/15.
    static var decayCorrectionOctavesPerNode: Double {
        @inline(__always) @_noLocks get { 0.548_587_912_699_725_4 }
    }
    /// Node k's decay (s).
    static func decayCorrectionNode(_ k: Int) -> Double {
        decayCorrectionFirstSeconds * RackMath.exp2(Double(k) * decayCorrectionOctavesPerNode)
    }

    /// Delay of the second output tap of every line, as a fraction of the room's shortest plain
    /// line delay: the outputs read every line twice, at its input and this far along it (the
    /// multi-tap output of J. Dattorro's plate, 1997, and of Griesinger's designs), so the
    /// output carries twice as many echoes per second from the start and the gap before the
    /// first recirculation is filled. The same delay for all eight lines, so the two taps'
    /// sign patterns stay orthogonal at one lag (different lags per line measurably correlate
    /// the outputs: −0.03…−0.12 at 48 kHz).
    static let midTapFraction = 0.43

    // MARK: Short decays in large rooms (the short form)

    /// Most a pass round an average loop may lose (dB) before a room hands its late network to
    /// its short form (`RoomDefinition.shortForm`): a loop of delay τ loses 60·τ/T60 dB a pass,
    /// so a room switches below T60 = 60·τ̄/this (`RoomDefinition.shortFormBelowSeconds`; τ̄ its
    /// mean loop delay). 20 dB: what smallRoom, the smallest network, loses at 0.2 s (18 dB),
    /// the shortest decay rack promises; cathedral's own loops lost ~58 dB a pass at
    /// 0.3 s (the tail was the first passes of a sparse network, ringing +16.6 dB at 568 Hz).
    static let shortFormLossPerPassDecibels = 20.0
    /// Size (`RoomDefinition.size`) of every room's short form: smallRoom's, the network that
    /// reaches 0.15 s within ±10 % and meets the quality goals at 0.3 s. Rooms no larger have
    /// no short form.
    static let shortFormSize = 0.42
    /// `RoomDefinition.inputDiffuserScale` of the short form, at most. The input diffusers are
    /// lossless and ring for ~19 of their delays (60 dB at g = 0.7): cathedral's longest
    /// (23 ms) alone rang 0.44 s. Half smallRoom's (0.30): in a dark room (cathedral's damping
    /// halves T60 at 3.5 kHz) the loops take the top octave out within a pass or two, and what
    /// is left up there in a 0.3 s tail is the input diffusers' periodic echo trains, which
    /// rang +8.8 dB at 8.9 kHz at 0.30 (+4.5 at 0.20, +1.1 at 0.15; cathedral at 0.3 s, 48 kHz).
    static let shortFormInputDiffuserScale = 0.15
    /// A room in its short form goes back to its own network only above this many times the
    /// switching decay (dimensionless): a decay that hovers at the threshold does not crossfade
    /// to and fro.
    static var shortFormHysteresis: Double { @inline(__always) @_noLocks get { 1.25 } }
    /// Length (s) of the input crossfade between a room's two forms: 20 ms, the engine's
    /// default ramp (as a room change's).
    static var shortFormCrossfadeSeconds: Double { @inline(__always) @_noLocks get { 0.02 } }

    // MARK: Input diffusion

    /// Delays of the input diffusers at `RoomDefinition.size == 1` (s): four lossless Schroeder
    /// allpasses in series on each input channel before the network (lanes 0…3: left input,
    /// 4…7: right input, first stage first), so the lines are fed a dense burst rather than a
    /// click and the echo density builds up within the first loop (M. R. Schroeder 1962's series
    /// allpasses; J. Dattorro, "Effect Design, Part 1", 1997, whose plate has four input
    /// diffusers of 3.5–12.7 ms). Growing stage by stage (each stage smears the previous one's
    /// echoes), different on the two sides (a mono input reaches the two halves of the network
    /// decorrelated), none a simple ratio of another.
    static let inputDiffuserSeconds: [Double] = [
        0.004_1, 0.006_7, 0.010_9, 0.015_7,
        0.004_7, 0.007_3, 0.009_7, 0.014_3,
    ]
    /// Smallest input diffuser delay (s), whatever the room size.
    static let minimumInputDiffuserSeconds = 0.001


    // MARK: DC blocking

    /// Corner (Hz) of the one-pole DC blocker on the reverb's output (`DCBlocker`): the wet
    /// signal has no DC (it would otherwise ring in the loop at the low-band T60) and is
    /// unchanged above ~50 Hz (−0.4 dB at 50 Hz).
    static let dcBlockerHertz = 15.0

    // MARK: Early reflections

    /// Early-reflection taps at `RoomDefinition.earlyTimeScale == 1` (s). Lanes 0…3 feed the LEFT output, 4…7 the
    /// RIGHT output. Each side reads both input channels at times that the other side does not
    /// use, so the two outputs' early patterns differ (decorrelation, a wider image).
    static let earlyTapSeconds: [Double] = [
        0.004_3, 0.009_7, 0.015_1, 0.021_9, // → left
        0.005_9, 0.011_3, 0.017_7, 0.024_1, // → right
    ]
    /// Input channel each early tap reads: 0 = left input, 1 = right input.
    static let earlyTapChannel: [Int] = [0, 1, 0, 1, 1, 0, 1, 0]
    /// Relative gain of each early tap (linear, before `RoomDefinition.earlyLevel`); falling with
    /// time like successive wall reflections, one inverted per side (a pressure-release-like
    /// reflection) so the taps' sum is not a DC-heavy lump.
    static let earlyTapGain: [Double] = [0.9, 0.7, -0.55, 0.45, 0.9, 0.7, -0.55, 0.45]

    // MARK: Levels

    // (The injection and output sign patterns are structure, not tuning: rows of the Hadamard
    // matrix, in `ReverbCore.render` and described on `ReverbCore`.)

    /// Energy gain of the late reverb (linear power ratio, dimensionless), from a mono input
    /// to both outputs together, averaged with equal weight per octave over `loudnessBand`
    /// (pink weighting). The output taps are scaled per room to this, whatever the room's size,
    /// decay and damping, so rooms are about equally loud and a room change does not jump in
    /// level. 0.25 ≈ −6 dB (−9 dB per output side) relative to the dry signal: a design
    /// choice, a wet level that sits under the dry signal when mixed 50/50.
    /// (A WHITE impulse measures less, ~0.12–0.2 with the early taps: the damping and the input
    /// smoothing take the top octaves down.)
    static let lateEnergy = 0.25
    /// The band (Hz) over which `lateEnergy` is matched.
    static let loudnessBand = 100.0...10_000.0

    // MARK: Denormal protection

    /// Magnitude of the alternating-sign offset (±, flipping every sample) added to every line's
    /// input: 1e-20 ≈ −400 dBFS, far below audibility and far above the float subnormal range
    /// (< 1.18e-38), so the decaying state never reaches subnormal values (see `Reverb`).
    /// (Both are copied into the kernel's state in `prepare`/`init`: reading a `static let` on
    /// the realtime path would be a lazy-initialisation call, which `@_noLocks` rejects.)
    static let antiDenormal: Float = 1e-20
    /// Input samples smaller than this in magnitude are replaced by 0 (a subnormal input would
    /// otherwise be copied into the history buffer and the early-reflection taps).
    static let inputFlush: Float = 1e-30
}
