import ArgumentParser
import Foundation
import RackEngine
import RackFiles

struct PresetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presets",
        abstract: "List factory and user presets, or show one as JSON.",
        discussion: "Factory presets are numbered 0, 1, 2…; user presets −1, −2, …, each keeping its number across saves and deletes of others (use the number with --preset or /rack/preset). Names match ignoring case, exact first. User presets live in $XDG_CONFIG_HOME/rack/presets (or ~/.config/rack/presets), their numbers in .numbers.json there.")

    @Argument(help: "list (default) or show")
    var action: String = "list"
    /// Collected unconditionally so that a user preset's negative number is a name, not an option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("Preset name or number, for show.", valueName: "name"))
    var names: [String] = []
    var name: String? { names.first }

    func validate() throws {
        guard action == "list" || action == "show" else { throw ValidationError("unknown action '\(action)': use list or show") }
        if action == "show" && name == nil { throw ValidationError("show needs a preset name") }
        if names.count > 1 { throw ValidationError("show takes one preset name") }
        if action == "list" && name != nil { throw ValidationError("list takes no name") }
    }

    func run() throws {
        try runReportingErrors {
            let store = PresetStore.standard()
            reportPresetProblems(store)
            if action == "show" {
                print(try lookUpPreset(name!, in: store).json, terminator: "")
                return
            }
            // Full names (up to 64 characters), padded to the longest one.
            let width = max(16, store.all.map(\.name.count).max() ?? 0)
            for p in store.all {
                let index = store.index(of: p).map(String.init) ?? "?"
                let values = Parameters.all.map { "\($0.name)=\($0.format(p.state[$0.id]))" }.joined(separator: " ")
                print("\(index.padding(toLength: 4, withPad: " ", startingAt: 0))\(p.name.padding(toLength: width, withPad: " ", startingAt: 0)) \(p.isFactory ? "factory" : "user   ")  \(values)")
            }
        }
    }
}
