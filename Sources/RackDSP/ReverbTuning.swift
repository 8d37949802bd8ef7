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
/// geometrically over one octave with irregular steps, diffuser delays ~8–18 % of the loops;
/// the room parameters are design choices within the usual ranges (zita-rev1's defaults are a
/// 200 Hz crossover and a 6 kHz damping frequency), and each room's decay is calibrated against
/// the broadband targets in `Room.targetDecaySeconds` (`RoomTuning.calibration`).
enum ReverbTuning {
    // MARK: Network geometry at size 1.0 (a large hall)

    /// Loop delay of each of the 8 lines at `RoomTuning.size == 1` (s), diffuser included.
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

    // MARK: Early reflections

    /// Early-reflection taps at `RoomTuning.earlyTimeScale == 1` (s). Lanes 0…3 feed the LEFT output, 4…7 the
    /// RIGHT output. Each side reads both input channels at times that the other side does not
    /// use, so the two outputs' early patterns differ (decorrelation, a wider image).
    static let earlyTapSeconds: [Double] = [
        0.004_3, 0.009_7, 0.015_1, 0.021_9, // → left
        0.005_9, 0.011_3, 0.017_7, 0.024_1, // → right
    ]
    /// Input channel each early tap reads: 0 = left input, 1 = right input.
    static let earlyTapChannel: [Int] = [0, 1, 0, 1, 1, 0, 1, 0]
    /// Relative gain of each early tap (linear, before `RoomTuning.earlyLevel`); falling with
    /// time like successive wall reflections, one inverted per side (a pressure-release-like
    /// reflection) so the taps' sum is not a DC-heavy lump.
    static let earlyTapGain: [Double] = [0.9, 0.7, -0.55, 0.45, 0.9, 0.7, -0.55, 0.45]

    // MARK: Levels

    // (The injection and output sign patterns are structure, not tuning: rows of the Hadamard
    // matrix, written out in `ReverbCore.render` and described on `Reverb`.)

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

    // MARK: Rooms

    /// The per-room character. Times in s, frequencies in Hz, the rest dimensionless.
    struct RoomTuning {
        /// Scales `loopDelaySeconds` and `diffuserDelaySeconds` (room size).
        var size: Double
        /// Allpass coefficient of the in-loop diffusers (0.5…0.75): higher is denser.
        var diffusion: Double
        /// Delay of the late reverb's input (s).
        var preDelay: Double
        /// Scales `earlyTapSeconds`.
        var earlyTimeScale: Double
        /// Linear gain of the early taps (0: none). Set so that the early energy
        /// (2 · level² · Σ earlyTapGain² ≈ 3.6·level²) is ~35 % of `lateEnergy` in the small
        /// rooms, ~25 % in chambers and ~15–20 % in halls and the cathedral.
        var earlyLevel: Double
        /// T60 below the crossover divided by the mid-band T60 (zita-rev1's rtlow/rtmid).
        var lowRatio: Double
        /// Low/mid crossover (Hz) of the in-loop low shelf.
        var crossover: Double
        /// Frequency (Hz) at which T60 is half the mid-band T60 (zita-rev1's "fdamp").
        var damping: Double
        /// Mid-band T60 divided by the room's broadband target (dimensionless, > 1). The
        /// contract's T60 is the broadband decay of a white impulse response (Schroeder
        /// integration); since T60 falls above the damping frequency and most of a white
        /// signal's energy lies up there, the broadband decay is shorter than the mid-band one.
        /// Values measured at 48 kHz with `ImpulseResponseAnalysis` (scratch harness, iterated
        /// to convergence) so that √(T20·T30) equals the target: T20 comes out 1–5 % short and
        /// T30 1–5 % long (the decay curve bends because HF dies first). Re-measure after
        /// changing any other constant here (the procedure: render the impulse response,
        /// multiply this by target/√(T20·T30), repeat until it settles).
        var calibration: Double
    }

    /// The tuning of each room. Rooms: small loops, little pre-delay, short early pattern.
    /// Chambers and plate: higher diffusion (denser) and higher damping frequency (brighter);
    /// the plate has no early reflections and a thinner low end. Halls: long loops, 18–35 ms of
    /// pre-delay, warm low end. Cathedral: biggest loops, longest pre-delay, darkest.
    static func tuning(_ room: Room) -> RoomTuning {
        switch room {
        case .smallRoom:
            RoomTuning(size: 0.30, diffusion: 0.60, preDelay: 0.003, earlyTimeScale: 0.45,
                       earlyLevel: 0.16, lowRatio: 1.0, crossover: 200, damping: 6000,
                       calibration: 1.205)
        case .mediumRoom:
            RoomTuning(size: 0.40, diffusion: 0.60, preDelay: 0.005, earlyTimeScale: 0.6,
                       earlyLevel: 0.15, lowRatio: 1.05, crossover: 200, damping: 5500,
                       calibration: 1.205)
        case .largeRoom:
            RoomTuning(size: 0.52, diffusion: 0.62, preDelay: 0.008, earlyTimeScale: 0.8,
                       earlyLevel: 0.14, lowRatio: 1.1, crossover: 200, damping: 5000,
                       calibration: 1.182)
        case .largeRoom2:
            RoomTuning(size: 0.58, diffusion: 0.62, preDelay: 0.010, earlyTimeScale: 0.9,
                       earlyLevel: 0.14, lowRatio: 1.1, crossover: 200, damping: 4000,
                       calibration: 1.199)
        case .mediumChamber:
            RoomTuning(size: 0.42, diffusion: 0.70, preDelay: 0.006, earlyTimeScale: 0.7,
                       earlyLevel: 0.13, lowRatio: 1.0, crossover: 250, damping: 9000,
                       calibration: 1.108)
        case .largeChamber:
            RoomTuning(size: 0.56, diffusion: 0.70, preDelay: 0.010, earlyTimeScale: 0.9,
                       earlyLevel: 0.13, lowRatio: 1.0, crossover: 250, damping: 8000,
                       calibration: 1.126)
        case .plate:
            RoomTuning(size: 0.34, diffusion: 0.72, preDelay: 0.001, earlyTimeScale: 0.5,
                       earlyLevel: 0.0, lowRatio: 0.85, crossover: 300, damping: 12000,
                       calibration: 1.086)
        case .mediumHall:
            RoomTuning(size: 0.78, diffusion: 0.62, preDelay: 0.018, earlyTimeScale: 1.2,
                       earlyLevel: 0.12, lowRatio: 1.2, crossover: 200, damping: 6000,
                       calibration: 1.136)
        case .mediumHall2:
            RoomTuning(size: 0.84, diffusion: 0.62, preDelay: 0.020, earlyTimeScale: 1.3,
                       earlyLevel: 0.12, lowRatio: 1.2, crossover: 200, damping: 5500,
                       calibration: 1.138)
        case .mediumHall3:
            RoomTuning(size: 0.90, diffusion: 0.62, preDelay: 0.024, earlyTimeScale: 1.4,
                       earlyLevel: 0.12, lowRatio: 1.2, crossover: 200, damping: 5000,
                       calibration: 1.141)
        case .largeHall:
            RoomTuning(size: 1.00, diffusion: 0.62, preDelay: 0.028, earlyTimeScale: 1.6,
                       earlyLevel: 0.115, lowRatio: 1.25, crossover: 200, damping: 5000,
                       calibration: 1.127)
        case .largeHall2:
            RoomTuning(size: 1.10, diffusion: 0.62, preDelay: 0.034, earlyTimeScale: 1.8,
                       earlyLevel: 0.11, lowRatio: 1.25, crossover: 200, damping: 4500,
                       calibration: 1.120)
        case .cathedral:
            RoomTuning(size: 1.45, diffusion: 0.60, preDelay: 0.045, earlyTimeScale: 2.4,
                       earlyLevel: 0.10, lowRatio: 1.3, crossover: 180, damping: 3500,
                       calibration: 1.101)
        }
    }
}
