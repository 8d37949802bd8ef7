import RackDSP
import RackEngine

/// The room rule as a plugin applies it: a host sets every port (LV2) or parameter (CLAP), so
/// "the same group of changes sets them" cannot be told apart from "the host left them alone".
/// Instead, while every control that follows the room (`ReverbControls.followingRoom`: decay,
/// predelay, damping, lowcut, highcut, width, freeze) sits at its default, the room plays with
/// its own values of them, as `/rack/room NAME` alone or `rack render --set room=NAME` does;
/// once any of them moves from its default, all of them are taken as the host gives them.
/// (Per control it would misread presets: Vocal Plate's decay, 1.8 s, is the decay's default
/// and not the plate's own 1.6 s.) Tables made in `init`; `apply` is realtime.
struct PluginRoomRule: ~Copyable {
    /// True for a control that follows the room, by `ParameterID.rawValue`.
    private let follows: UniqueBuffer<Bool>
    /// Each room's own value of each parameter, by room index × count + `ParameterID.rawValue`
    /// (the default where the parameter does not follow the room).
    private let own: UniqueBuffer<Double>
    private let count: Int
    private let roomCount: Int
    /// The room parameter's index, and its minimum (the index of the first room).
    private let roomIndex: Int, roomMinimum: Double

    init() {
        let all = Parameters.all, rooms = Room.allCases
        let following = ReverbControls.followingRoom
        count = all.count
        roomCount = rooms.count
        roomIndex = ParameterID.room.rawValue
        roomMinimum = all[ParameterID.room.rawValue].minimum
        follows = UniqueBuffer(count: all.count) { index in following.contains { $0.rawValue == index } }
        let implied = rooms.map { RoomRule.implied(by: $0) }
        let count = all.count
        own = UniqueBuffer(count: rooms.count * count) { k in
            implied[k / count].first { $0.0.rawValue == k % count }?.1 ?? all[k % count].defaultValue
        }
    }

    /// `values` (by `ParameterID.rawValue`) with the room's own values of the controls that
    /// follow it when all of them are at their defaults (`ControlLimits.isDefault`), into `out`.
    /// - Realtime: safe
    @_noLocks
    func apply(_ values: UnsafePointer<Double>, limits: UnsafePointer<ControlLimits>, into out: UnsafeMutablePointer<Double>) {
        var allDefault = true
        for index in 0..<count {
            out[index] = values[index]
            if follows.base[index] && !limits[index].isDefault(values[index]) { allDefault = false }
        }
        guard allDefault else { return }
        let room = Int(values[roomIndex] - roomMinimum)
        guard room >= 0 && room < roomCount else { return }
        for index in 0..<count where follows.base[index] { out[index] = own.base[room * count + index] }
    }
}
