import ArgumentParser
import RackEngine
import RackFiles
import RackIO

/// What the shell completions offer for rack's values, from rack's own tables: preset names
/// (the presets there are when the user presses tab: asked of rack then), parameter ids and
/// room names for `--set`, and the sample formats for `--format`.
enum Completions {
    /// Every preset's name, factory first.
    static let presets = CompletionKind.custom { _, _, _ in PresetStore.standard().all.map(\.name) }

    /// `NAME=` for each parameter; after `room=`, each room as `room=NAME`.
    static let settings = CompletionKind.custom { _, _, prefix in
        for spec in Parameters.all where spec.taper == .choice && prefix.hasPrefix(spec.name + "=") {
            return spec.choices.map { spec.name + "=" + $0 }
        }
        return Parameters.all.map { $0.name + "=" }
    }

    /// The sample formats `--format` takes.
    static let formats = CompletionKind.list(SampleFormat.allCases.map(\.rawValue))
}
