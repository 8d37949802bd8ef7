import RackDSP

/// The target value of every parameter: what a preset stores, what `dump` reports.
/// Values are in parameter units; `room` is stored as its index.
public struct RackState: Sendable, Equatable {
    /// Indexed by `ParameterID.rawValue`.
    public private(set) var values: [Double]

    /// Every parameter at its default (the parameter table's).
    public init() { values = Parameters.defaults }

    public subscript(_ id: ParameterID) -> Double {
        get { values[id.rawValue] }
        set { values[id.rawValue] = Parameters[id].clamp(newValue) }
    }

    public var room: Room {
        get { Room(rawValue: Int(values[ParameterID.room.rawValue])) ?? Room.allCases[Int(Parameters[.room].defaultValue)] }
        set { values[ParameterID.room.rawValue] = Double(newValue.rawValue) }
    }

    /// Every value rounded to its parameter's precision (`ParameterSpec.rounded`): what a saved
    /// preset holds, in its file and in memory alike.
    public var rounded: RackState {
        var copy = self
        copy.values = zip(Parameters.all, values).map { spec, v in spec.rounded(v) }
        return copy
    }

    /// The events that move a rack from anywhere to this state at `time`, every parameter
    /// ramping over `ramp`.
    public func events(at time: EventTime, ramp: RampLength) -> [EngineEvent] {
        ParameterID.allCases.map { EngineEvent(time, .set($0, self[$0], ramp: ramp)) }
    }
}
