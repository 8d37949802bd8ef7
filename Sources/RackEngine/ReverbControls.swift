import RackDSP

/// The reverb's shaping controls as parameters: the rows bound to a field of `ReverbShape`
/// (`KernelSetting.isReverbShape`; their unit conversions are their bindings'), and the one list
/// of the controls that follow the room (the room rule, `RoomRule`).
public enum ReverbControls {
    /// The parameters that take a room's own values when the room is chosen, in table order:
    /// every row bound to a field of `ReverbShape`.
    public static let followingRoom: [ParameterID] = Parameters.all.filter { $0.binding.setting.isReverbShape }.map { $0.id }

    /// True when two shapes are equal in every field (`==` of another module, readable by the
    /// render thread's checker).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    static func same(_ a: ReverbShape, _ b: ReverbShape) -> Bool {
        a.decaySeconds == b.decaySeconds && a.predelaySeconds == b.predelaySeconds && a.dampingHz == b.dampingHz
            && a.lowcutHz == b.lowcutHz && a.highcutHz == b.highcutHz && a.width == b.width && a.freeze == b.freeze
    }

    /// True when `shape` is a room's own values `own` as far as OSC can say: each field within
    /// a 32-bit float's precision (relative 1e-6). A value that went through OSC, a preset
    /// file or a recording as a float is still the room's own, so live and replayed sessions
    /// leave the room's design alone alike.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    static func isOwn(_ shape: ReverbShape, _ own: ReverbShape) -> Bool {
        close(shape.decaySeconds, own.decaySeconds) && close(shape.predelaySeconds, own.predelaySeconds)
            && close(shape.dampingHz, own.dampingHz) && close(shape.lowcutHz, own.lowcutHz)
            && close(shape.highcutHz, own.highcutHz) && close(shape.width, own.width) && shape.freeze == own.freeze
    }

    /// - Realtime: safe
    @_noLocks @inline(__always)
    static func close(_ a: Double, _ b: Double) -> Bool {
        let difference = a > b ? a - b : b - a
        let size = (a < 0 ? -a : a) > (b < 0 ? -b : b) ? (a < 0 ? -a : a) : (b < 0 ? -b : b)
        return difference <= 1e-6 * size
    }

    /// The parameters' values (in their units) of `shape`: a room's own values (`Room.shape`),
    /// through each row's binding.
    public static func values(of shape: ReverbShape) -> [ParameterID: Double] {
        var values: [ParameterID: Double] = [:]
        for spec in Parameters.all { if let v = spec.binding.parameterValue(in: shape) { values[spec.id] = v } }
        return values
    }
}

extension RackState {
    /// The reverb shape these values make: what the engine's reverb stage runs once every ramp
    /// has arrived (`rack plot --decay` draws it), through the rows' bindings.
    public var reverbShape: ReverbShape { KernelSettings(self).shape }
}

/// The room rule: choosing a room moves the controls that follow the room to that room's own
/// values, unless the same group of changes (one OSC message or bundle, automation line,
/// preset or `--set` list) sets them. The one implementation; every place that groups changes
/// calls it.
public enum RoomRule {
    /// The changes choosing `room` implies, in table order, leaving out the parameters in
    /// `setAlso` (set by the same group).
    public static func implied(by room: Room, setAlso: Set<ParameterID> = []) -> [(ParameterID, Double)] {
        let own = ReverbControls.values(of: room.shape)
        return ReverbControls.followingRoom.compactMap { id in
            guard !setAlso.contains(id), let v = own[id] else { return nil }
            return (id, Parameters[id].clamp(v))
        }
    }

    /// A group of changes with each room change followed by what it implies (the controls the
    /// group does not set itself, at the new room's values).
    public static func expand(_ changes: [(ParameterID, Double)]) -> [(ParameterID, Double)] {
        let set = Set(changes.map { $0.0 })
        var out: [(ParameterID, Double)] = []
        for (id, value) in changes {
            out.append((id, value))
            if id == .room, let room = Room.at(index: Int(value)) { out += implied(by: room, setAlso: set) }
        }
        return out
    }
}
