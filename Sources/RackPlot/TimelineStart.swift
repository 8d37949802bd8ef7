import RackEngine
import RackFiles

extension Timeline {
    /// How the timeline starts: `base` (the defaults, or --preset and --set), then the file's
    /// own lines at t = 0 without a ramp (`Automation.isStartingState`), which set the state a
    /// replay starts from. A recording begins with every parameter: it starts from the file's
    /// state alone, whatever `base` was.
    public static func describeStart(_ base: String, automation: Automation) -> String {
        var preset: String?
        var set = Set<ParameterID>()
        for e in automation.events where Automation.isStartingState(e) {
            switch e.action {
            case let .set(id, _, _): set.insert(id)
            case let .preset(name, _): preset = name
            default: break
            }
        }
        guard preset != nil || !set.isEmpty else { return base }
        let every = set.count == Parameters.all.count
        let parts = (preset.map { ["preset \($0)"] } ?? [])
            + (every ? ["every parameter"] : set.isEmpty ? [] : [Parameters.all.filter { set.contains($0.id) }.map(\.name).joined(separator: ", ")])
        let fileState = "the file's t = 0 state (" + parts.joined(separator: ", ") + ")"
        return every ? fileState : base + " + " + fileState
    }
}
