import RackDSP
import RackEngine

/// Colours shared by the plots.
enum Palette {
    /// Reserved for problems.
    static let problem = "#d0021b"
    static let ink = "#222222"
    static let muted = "#5f6670"
    static let grid = "#e2e5ea"
    static let frame = "#c9ced6"
    static let laneFill = "#f8f9fb"
    static let marker = "#3a3f47"

    /// A parameter's lane and curve colour: its row of the parameter table.
    static func parameter(_ id: ParameterID) -> String { Parameters[id].plotColour }

    /// Pastel fills for the room lane, one per room.
    static func room(_ room: Room) -> String {
        let fills = ["#dbe9f7", "#e6dcf3", "#d9efe3", "#f6e3cf", "#f2d9e2", "#e0e7c9", "#d3ecee"]
        return fills[room.rawValue % fills.count]
    }

    /// Curve colours of the response plot, in order (repeating after eight).
    static func curve(_ index: Int) -> String {
        let colours = ["#1f6fb4", "#e07b00", "#1b8a5a", "#8a3fb0", "#8c564b", "#d6409f", "#17a2b8", "#5f6670"]
        return colours[index % colours.count]
    }
}
