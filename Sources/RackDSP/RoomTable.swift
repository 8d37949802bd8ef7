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
    /// Provenance. `targetDecaySeconds`: the contract's table of broadband RT60s (impulse
    /// response at 100 % wet). The character columns are our own design choices within the
    /// usual ranges (zita-rev1's defaults are a 200 Hz crossover and a 6 kHz damping frequency):
    /// - Rooms: small loops, little pre-delay, short early pattern.
    /// - Chambers and plate: higher diffusion (denser) and higher damping frequency (brighter);
    ///   the plate has no early reflections and a thinner low end.
    /// - Halls: long loops, 18–35 ms of pre-delay, warm low end.
    /// - Cathedral: biggest loops, longest pre-delay, darkest.
    /// `calibration`: measured at 48 kHz (see `RoomDefinition.calibration` for the procedure).
    static let table: [RoomDefinition] = [
        RoomDefinition(name: "smallRoom", targetDecaySeconds: 0.4,
                       size: 0.30, diffusion: 0.60, preDelay: 0.003, earlyTimeScale: 0.45,
                       earlyLevel: 0.16, lowRatio: 1.0, crossover: 200, damping: 6000,
                       calibration: 1.205),
        RoomDefinition(name: "mediumRoom", targetDecaySeconds: 0.7,
                       size: 0.40, diffusion: 0.60, preDelay: 0.005, earlyTimeScale: 0.6,
                       earlyLevel: 0.15, lowRatio: 1.05, crossover: 200, damping: 5500,
                       calibration: 1.205),
        RoomDefinition(name: "largeRoom", targetDecaySeconds: 1.1,
                       size: 0.52, diffusion: 0.62, preDelay: 0.008, earlyTimeScale: 0.8,
                       earlyLevel: 0.14, lowRatio: 1.1, crossover: 200, damping: 5000,
                       calibration: 1.182),
        RoomDefinition(name: "largeRoom2", targetDecaySeconds: 1.3,
                       size: 0.58, diffusion: 0.62, preDelay: 0.010, earlyTimeScale: 0.9,
                       earlyLevel: 0.14, lowRatio: 1.1, crossover: 200, damping: 4000,
                       calibration: 1.199),
        RoomDefinition(name: "mediumChamber", targetDecaySeconds: 1.2,
                       size: 0.42, diffusion: 0.70, preDelay: 0.006, earlyTimeScale: 0.7,
                       earlyLevel: 0.13, lowRatio: 1.0, crossover: 250, damping: 9000,
                       calibration: 1.108),
        RoomDefinition(name: "largeChamber", targetDecaySeconds: 1.8,
                       size: 0.56, diffusion: 0.70, preDelay: 0.010, earlyTimeScale: 0.9,
                       earlyLevel: 0.13, lowRatio: 1.0, crossover: 250, damping: 8000,
                       calibration: 1.126),
        RoomDefinition(name: "plate", targetDecaySeconds: 1.6,
                       size: 0.34, diffusion: 0.72, preDelay: 0.001, earlyTimeScale: 0.5,
                       earlyLevel: 0.0, lowRatio: 0.85, crossover: 300, damping: 12000,
                       calibration: 1.086),
        RoomDefinition(name: "mediumHall", targetDecaySeconds: 1.8,
                       size: 0.78, diffusion: 0.62, preDelay: 0.018, earlyTimeScale: 1.2,
                       earlyLevel: 0.12, lowRatio: 1.2, crossover: 200, damping: 6000,
                       calibration: 1.136),
        RoomDefinition(name: "mediumHall2", targetDecaySeconds: 2.0,
                       size: 0.84, diffusion: 0.62, preDelay: 0.020, earlyTimeScale: 1.3,
                       earlyLevel: 0.12, lowRatio: 1.2, crossover: 200, damping: 5500,
                       calibration: 1.138),
        RoomDefinition(name: "mediumHall3", targetDecaySeconds: 2.2,
                       size: 0.90, diffusion: 0.62, preDelay: 0.024, earlyTimeScale: 1.4,
                       earlyLevel: 0.12, lowRatio: 1.2, crossover: 200, damping: 5000,
                       calibration: 1.141),
        RoomDefinition(name: "largeHall", targetDecaySeconds: 2.6,
                       size: 1.00, diffusion: 0.62, preDelay: 0.028, earlyTimeScale: 1.6,
                       earlyLevel: 0.115, lowRatio: 1.25, crossover: 200, damping: 5000,
                       calibration: 1.127),
        RoomDefinition(name: "largeHall2", targetDecaySeconds: 3.0,
                       size: 1.10, diffusion: 0.62, preDelay: 0.034, earlyTimeScale: 1.8,
                       earlyLevel: 0.11, lowRatio: 1.25, crossover: 200, damping: 4500,
                       calibration: 1.120),
        RoomDefinition(name: "cathedral", targetDecaySeconds: 5.0,
                       size: 1.45, diffusion: 0.60, preDelay: 0.045, earlyTimeScale: 2.4,
                       earlyLevel: 0.10, lowRatio: 1.3, crossover: 180, damping: 3500,
                       calibration: 1.101),
    ]
}
