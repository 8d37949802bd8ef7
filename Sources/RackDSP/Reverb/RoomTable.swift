/// The reverb rooms: the 13 factory preset names of AVAudioUnitReverb. This file is the one
/// place that names them and says what each one is; everything else reads `RoomDefinition.table`
/// through `Room` (`name`, `targetDecaySeconds`) or the reverb's design (`ReverbCoefficients`).
///
/// The order of the cases is the order of the table and the `rawValue` of each room (its index in
/// `Room.allCases`, in presets' numeric form and in the `room` parameter's value): append only.
public enum Room: Int, CaseIterable, Sendable, Hashable {
    case smallRoom, mediumRoom, largeRoom, largeRoom2
    case mediumChamber, largeChamber, plate
    case mediumHall, mediumHall2, mediumHall3, largeHall, largeHall2
    case cathedral

    /// The room a new rack starts with (the `room` parameter's default).
    /// - Realtime: safe
    public static var `default`: Room { .mediumHall }

    // (In this file because the synthesized `rawValue` and `init(rawValue:)` are visible to the
    // `@_noLocks` checker of a debug build only here.)

    /// Position in `Room.allCases` (0…12): the `rawValue`, for the realtime code.
    /// - Realtime: safe
    @inline(__always)
    var index: Int { @_noLocks get { rawValue } }

    /// The room at `index` (its `rawValue`), nil outside 0…12.
    /// - Realtime: safe
    @_noLocks
    public static func at(index: Int) -> Room? { Room(rawValue: index) }
}

extension RoomDefinition {
    /// Every room, in `Room` order (entry i is `Room(rawValue: i)`).
    ///
    /// Provenance. `targetDecaySeconds`: the documented table of broadband RT60s (impulse
    /// response at 100 % wet): the room's own `decay`; its own `damping` is
    /// `halfDecayHz / ReverbTuning.halfDecayPerDamping`. The
    /// character columns are our own design choices within the
    /// usual ranges (zita-rev1's defaults are a 200 Hz crossover and a 6 kHz "fdamp", where T60 is
    /// half the mid band's: `halfDecayHz`):
    /// - Rooms: little pre-delay, short early pattern, short input diffusers.
    /// - Chambers and plate: higher damping frequency (brighter); the plate has no early
    ///   reflections and a thinner low end.
    /// - Halls: 18–35 ms of pre-delay, warm low end, early taps ~15 % of the late energy.
    /// - Cathedral: longest pre-delay, darkest.
    /// `size` (the loops' length, hence modal density) and `inputDiffuserScale` (how fast the
    /// echo density builds up) were chosen, room by room at 48 kHz, for a mixing time within the
    /// goal of its length class, a late tail without ringing and late L/R correlation within
    /// ±0.05 (`ReverbQualityTests`): the loops total ≥ 0.45·T60 modes per Hz; the in-loop
    /// diffusion is 0.5 everywhere (the input diffusers make the density now).
    /// `calibration`: measured at 48 kHz (see `RoomDefinition.calibration` for the procedure).
    static let table: [RoomDefinition] = [
        RoomDefinition(name: "smallRoom", targetDecaySeconds: 0.4,
                       size: 0.42, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 0.30,
                       preDelay: 0.003, earlyTimeScale: 0.45,
                       earlyLevel: 0.16, lowRatio: 1.0, crossover: 200, halfDecayHz: 6000,
                       calibration: 1.301),
        RoomDefinition(name: "mediumRoom", targetDecaySeconds: 0.7,
                       size: 0.64, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 0.40,
                       preDelay: 0.005, earlyTimeScale: 0.6,
                       earlyLevel: 0.15, lowRatio: 1.05, crossover: 200, halfDecayHz: 5500,
                       calibration: 1.267),
        RoomDefinition(name: "largeRoom", targetDecaySeconds: 1.1,
                       size: 0.83, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 0.52,
                       preDelay: 0.008, earlyTimeScale: 0.8,
                       earlyLevel: 0.14, lowRatio: 1.1, crossover: 200, halfDecayHz: 5000,
                       calibration: 1.249),
        RoomDefinition(name: "largeRoom2", targetDecaySeconds: 1.3,
                       size: 0.87, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 0.58,
                       preDelay: 0.010, earlyTimeScale: 0.9,
                       earlyLevel: 0.14, lowRatio: 1.1, crossover: 200, halfDecayHz: 4000,
                       calibration: 1.266),
        RoomDefinition(name: "mediumChamber", targetDecaySeconds: 1.2,
                       size: 0.67, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 0.42,
                       preDelay: 0.006, earlyTimeScale: 0.7,
                       earlyLevel: 0.13, lowRatio: 1.0, crossover: 250, halfDecayHz: 9000,
                       calibration: 1.174),
        RoomDefinition(name: "largeChamber", targetDecaySeconds: 1.8,
                       size: 0.95, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 0.56,
                       preDelay: 0.010, earlyTimeScale: 0.9,
                       earlyLevel: 0.13, lowRatio: 1.0, crossover: 250, halfDecayHz: 8000,
                       calibration: 1.186),
        RoomDefinition(name: "plate", targetDecaySeconds: 1.6,
                       size: 0.82, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 0.34,
                       preDelay: 0.001, earlyTimeScale: 0.5,
                       earlyLevel: 0.0, lowRatio: 0.85, crossover: 300, halfDecayHz: 12000,
                       calibration: 1.161),
        RoomDefinition(name: "mediumHall", targetDecaySeconds: 1.8,
                       size: 1.29, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 0.78,
                       preDelay: 0.018, earlyTimeScale: 1.2,
                       earlyLevel: 0.08, lowRatio: 1.2, crossover: 200, halfDecayHz: 6000,
                       calibration: 1.168),
        RoomDefinition(name: "mediumHall2", targetDecaySeconds: 2.0,
                       size: 1.32, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 0.84,
                       preDelay: 0.020, earlyTimeScale: 1.3,
                       earlyLevel: 0.08, lowRatio: 1.2, crossover: 200, halfDecayHz: 5500,
                       calibration: 1.181),
        RoomDefinition(name: "mediumHall3", targetDecaySeconds: 2.2,
                       size: 1.62, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 0.90,
                       preDelay: 0.024, earlyTimeScale: 1.4,
                       earlyLevel: 0.08, lowRatio: 1.2, crossover: 200, halfDecayHz: 5000,
                       calibration: 1.190),
        RoomDefinition(name: "largeHall", targetDecaySeconds: 2.6,
                       size: 1.50, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 1.00,
                       preDelay: 0.028, earlyTimeScale: 1.6,
                       earlyLevel: 0.08, lowRatio: 1.25, crossover: 200, halfDecayHz: 5000,
                       calibration: 1.161),
        RoomDefinition(name: "largeHall2", targetDecaySeconds: 3.0,
                       size: 1.54, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 1.10,
                       preDelay: 0.034, earlyTimeScale: 1.8,
                       earlyLevel: 0.08, lowRatio: 1.25, crossover: 200, halfDecayHz: 4500,
                       calibration: 1.156),
        RoomDefinition(name: "cathedral", targetDecaySeconds: 5.0,
                       size: 2.03, diffusion: 0.50, inputDiffusion: 0.70, inputDiffuserScale: 1.45,
                       preDelay: 0.045, earlyTimeScale: 2.4,
                       earlyLevel: 0.08, lowRatio: 1.3, crossover: 180, halfDecayHz: 3500,
                       calibration: 1.143),
    ]
}

/// Everything known about one reverb room: its name, the decay it is tuned to and the character
/// the reverb's design (`ReverbCoefficients`) turns into a network at the running sample rate.
/// Times in s, frequencies in Hz, the rest dimensionless. The rooms are the rows of
/// `RoomDefinition.table` (RoomTable.swift); the network constants they scale are in `ReverbTuning`.
struct RoomDefinition: Sendable {
    /// The name used on the command line, in OSC, presets and automation files.
    var name: String
    /// Target broadband RT60 (s) of the impulse response at 100 % wet (the documented table).
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
    /// Mid-band T60 divided by `targetDecaySeconds` (dimensionless, > 1). The documented T60 is
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

/// The API of `Room` (the cases and their facts are in RoomTable.swift).
extension Room {
    /// This room's row of `RoomDefinition.table`. Not realtime (reads a lazily made global).
    var definition: RoomDefinition { RoomDefinition.table[rawValue] }

    /// The name used on the command line, in OSC, presets and automation files.
    public var name: String { definition.name }

    /// Target broadband RT60 in seconds (the documented table).
    public var targetDecaySeconds: Double { definition.targetDecaySeconds }

    /// Looks a room up by its name: exact first, then ignoring case (`NameMatch`), so
    /// "MediumHall" and "PLATE" are rooms too.
    public init?(name: String) {
        guard let match = NameMatch.find(name, in: Room.allCases.lazy.map { $0.name }),
              let room = Room.allCases.first(where: { $0.name == match }) else { return nil }
        self = room
    }

    /// The error text for a room name that `init?(name:)` does not know, e.g.
    /// "unknown room 'hall' (one of NAME, NAME, …)", every name in `Room.allCases` order.
    public static func unknownNameReason(_ name: String) -> String {
        "unknown room '\(name)' (one of \(Room.allCases.map { $0.name }.joined(separator: ", ")))"
    }
}
