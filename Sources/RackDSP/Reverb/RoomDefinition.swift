/// Everything known about one reverb room: its name, the decay it is tuned to and the character
/// the reverb's design (`ReverbCoefficients`) turns into a network at the running sample rate.
/// Times in s, frequencies in Hz, the rest dimensionless. The rooms are the rows of
/// `RoomDefinition.table` (RoomTable.swift); the network constants they scale are in `ReverbTuning`.
struct RoomDefinition: Sendable {
    /// The name used on the command line, in OSC, presets and automation files.
    var name: String
    /// Target broadband RT60 (s) of the impulse response at 100 % wet (the contract's table).
    var targetDecaySeconds: Double
    /// Scales `ReverbTuning.loopDelaySeconds` and `diffuserDelaySeconds` (room size). Sets
    /// the modal density: the loops total 1.15·size s, i.e. 1.15·size modes per Hz, which the
    /// late tail needs to sound like noise rather than a set of lines (`ReverbQualityTests`,
    /// ringing: ≥ 0.45·T60 modes per Hz in every room).
    var size: Double
    /// Allpass coefficient of the in-loop diffusers (0.5…0.75): higher is denser.
    var diffusion: Double
    /// Allpass coefficient of the input diffusers (`ReverbTuning.inputDiffuserSeconds`),
    /// 0.6…0.7: the higher, the sooner the echo density builds up.
    var inputDiffusion: Double
    /// Scales `ReverbTuning.inputDiffuserSeconds`. Keep the input diffusers' own decay (a
    /// stage of delay M rings for ~21·M at g = 0.7) well under the room's T60: their echo
    /// train is periodic, and one that lasts into the late tail is heard (and measured) as
    /// ringing at multiples of 1/M.
    var inputDiffuserScale: Double
    /// Delay of the late reverb's input (s).
    var preDelay: Double
    /// Scales `ReverbTuning.earlyTapSeconds`.
    var earlyTimeScale: Double
    /// Linear gain of the early taps (0: none). Set so that the early energy
    /// (2 · level² · Σ earlyTapGain² ≈ 3.6·level²) is ~35 % of `ReverbTuning.lateEnergy` in the
    /// small rooms, ~25 % in chambers and ~15–20 % in the halls and the largest room.
    var earlyLevel: Double
    /// T60 below the crossover divided by the mid-band T60 (zita-rev1's rtlow/rtmid).
    var lowRatio: Double
    /// Low/mid crossover (Hz) of the in-loop low shelf.
    var crossover: Double
    /// Frequency (Hz) at which T60 is half the mid-band T60 (zita-rev1's "fdamp"). The room's
    /// own `damping` control value is this over `ReverbTuning.halfDecayPerDamping` (`dampingHz`).
    var halfDecayHz: Double

    /// The room's own `damping` (Hz): the octave band at twice it decays in half the mid band's
    /// time.
    var dampingHz: Double { halfDecayHz / ReverbTuning.halfDecayPerDamping }
    /// Mid-band T60 divided by `targetDecaySeconds` (dimensionless, > 1). The contract's T60 is
    /// the broadband decay of a white impulse response (Schroeder integration); since T60 falls
    /// above the damping frequency and most of a white signal's energy lies up there, the
    /// broadband decay is shorter than the mid-band one. Values measured at 48 kHz with
    /// `ImpulseResponseAnalysis` (scratch harness, iterated to convergence) so that √(T20·T30)
    /// equals the target: T20 comes out 1–5 % short and T30 1–5 % long (the decay curve bends
    /// because HF dies first). Re-measure after changing any other constant of the room or of
    /// `ReverbTuning` (the procedure: render the impulse response, multiply this by
    /// target/√(T20·T30), repeat until it settles).
    var calibration: Double
}
