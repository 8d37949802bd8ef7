/// The API of `Room` (the cases and their facts are in RoomTable.swift).
extension Room {
    /// This room's row of `RoomDefinition.table`. Not realtime (reads a lazily made global).
    var definition: RoomDefinition { RoomDefinition.table[rawValue] }

    /// The name used on the command line, in OSC, presets and automation files.
    public var name: String { definition.name }

    /// Target broadband RT60 in seconds (the contract's table).
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
