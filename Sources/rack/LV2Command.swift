import ArgumentParser
import Foundation
import RackEngine
import RackFiles
import RackLV2

/// `rack lv2-ttl DIR`: writes the LV2 bundle's description (`manifest.ttl`, `rack.ttl`,
/// `presets.ttl`) from the parameter table, the room table and the factory presets. The bundle
/// committed in `share/lv2/rack.lv2` and an installed one are checked against this output.
struct LV2Command: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lv2-ttl",
        abstract: "Write the LV2 plugin's .ttl files (manifest, ports, factory presets) into a directory.",
        discussion: "Generated from the parameter table and the factory presets; the shared object (\(PluginLayout.binaryName)) is built by `scripts/build-plugins`.")

    @Argument(help: "Directory to write manifest.ttl, rack.ttl and presets.ttl into (created if missing).")
    var directory: String

    func run() throws {
        try runReportingErrors {
            // Only the factory presets go into the bundle; the user's stay out of it.
            let store = PresetStore.standard()
            guard !store.factory.isEmpty else { throw RackError(.noInput, "lv2-ttl: no factory presets found") }
            let description = try LV2Description(presets: store.factory)
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw RackError(.cannotCreate, "lv2-ttl: cannot create '\(directory)'")
            }
            for (name, text) in description.files {
                try atomicWrite(Array(text.utf8), to: directory + "/" + name, directory: directory)
            }
        }
    }
}
