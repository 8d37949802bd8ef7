/// The reverb rooms: the 13 factory preset names of AVAudioUnitReverb, with the broadband decay
/// time (RT60 of the impulse response at 100 % wet) each one is tuned to. `ReverbTuning` holds the
/// network constants that realise them; `ReverbTests` measures every room against these targets.
public enum Room: Int, CaseIterable, Sendable, Hashable {
    case smallRoom, mediumRoom, largeRoom, largeRoom2
    case mediumChamber, largeChamber, plate
    case mediumHall, mediumHall2, mediumHall3, largeHall, largeHall2
    case cathedral

    /// The name used on the command line, in OSC, presets and automation files.
    public var name: String {
        switch self {
        case .smallRoom: "smallRoom"
        case .mediumRoom: "mediumRoom"
        case .largeRoom: "largeRoom"
        case .largeRoom2: "largeRoom2"
        case .mediumChamber: "mediumChamber"
        case .largeChamber: "largeChamber"
        case .plate: "plate"
        case .mediumHall: "mediumHall"
        case .mediumHall2: "mediumHall2"
        case .mediumHall3: "mediumHall3"
        case .largeHall: "largeHall"
        case .largeHall2: "largeHall2"
        case .cathedral: "cathedral"
        }
    }

    /// The room at `index` (its `rawValue`), nil outside 0…12.
    /// - Realtime: safe
    @_noLocks
    public static func at(index: Int) -> Room? { Room(rawValue: index) }

    /// Looks a room up by its name (exact, case-sensitive).
    public init?(name: String) {
        guard let room = Room.allCases.first(where: { $0.name == name }) else { return nil }
        self = room
    }

    /// Target broadband RT60 in seconds (the contract's table).
    public var targetDecaySeconds: Double {
        switch self {
        case .smallRoom: 0.4
        case .mediumRoom: 0.7
        case .largeRoom: 1.1
        case .largeRoom2: 1.3
        case .mediumChamber: 1.2
        case .largeChamber: 1.8
        case .plate: 1.6
        case .mediumHall: 1.8
        case .mediumHall2: 2.0
        case .mediumHall3: 2.2
        case .largeHall: 2.6
        case .largeHall2: 3.0
        case .cathedral: 5.0
        }
    }
}
