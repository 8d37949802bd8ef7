import Foundation
import RackEngine
import RackFiles

/// The MIDI map on disk: `$XDG_CONFIG_HOME/rack/midi.json` (or `~/.config/rack/midi.json`), or
/// `midi.json` in the session directory under NSM. JSON:
///
///     {"bindings": [{"channel": 0, "cc": 74, "param": "cutoff"}, …]}
///
/// The file is the whole map: a default binding that was unmapped stays unmapped. Saves are
/// atomic (temp file, fsync, rename): a crash never leaves half a map.
public enum MIDIMapFile {
    /// The user's map file for `environment`: `midi.json` in rack's config directory
    /// (`UserDirectories`); nil when the environment names no home.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        UserDirectories.directory(.config, environment: environment).map { $0 + "/midi.json" }
    }

    /// Why a learned map cannot be kept when there is no map file.
    public static let noFileReason = "cannot save the MIDI map (the binding holds until rack stops): "
        + UserDirectories.noHomeReason(.config)

    /// The map in `path`: the defaults when there is no file; an error naming the file and the
    /// reason when it cannot be read or is not a map.
    public static func load(path: String) throws(RackError) -> MIDIMap {
        guard FileManager.default.fileExists(atPath: path) else { return .defaults }
        guard let data = FileManager.default.contents(atPath: path) else { throw RackError(.noInput, "MIDI map '\(path)': cannot read it") }
        return try decode(data, path: path)
    }

    /// Parses a map; errors name `path` and what is wrong.
    public static func decode(_ data: Data, path: String) throws(RackError) -> MIDIMap {
        func bad(_ why: String) -> RackError { RackError(.dataError, "MIDI map '\(path)': \(why)") }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw bad("not a JSON object") }
        guard let list = object["bindings"] as? [Any] else { throw bad("no \"bindings\" list") }
        var bindings: [MIDIMap.Binding] = []
        for (i, item) in list.enumerated() {
            guard let b = item as? [String: Any], let cc = b["cc"] as? Int, let name = b["param"] as? String else {
                throw bad("binding \(i + 1) needs \"cc\" (0…127) and \"param\"")
            }
            let channel = b["channel"] as? Int ?? 0
            guard let spec = Parameters.named(name) else { throw bad("binding \(i + 1): unknown parameter '\(name)'" + Parameters.didYouMean(name)) }
            let binding = MIDIMap.Binding(channel: channel, controller: cc, parameter: spec.id)
            if let why = MIDIMap.problem(binding) { throw bad("binding \(i + 1): \(why)") }
            if bindings.contains(where: { $0.controller == cc }) { throw bad("binding \(i + 1): CC \(cc) is bound twice") }
            bindings.append(binding)
        }
        return MIDIMap(bindings: bindings)
    }

    /// The JSON text of `map`.
    public static func encode(_ map: MIDIMap) -> String {
        let lines = map.bindings.map {
            "    {\"channel\": \($0.channel), \"cc\": \($0.controller), \"param\": \"\(Parameters[$0.parameter].name)\"}"
        }
        return "{\n  \"bindings\": [\n" + lines.joined(separator: ",\n") + (lines.isEmpty ? "" : "\n") + "  ]\n}\n"
    }

    /// Writes `map` to `path` atomically, making its directory if needed.
    public static func save(_ map: MIDIMap, path: String) throws(RackError) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RackError(.cannotCreate, "cannot create '\(directory)' for the MIDI map: \(error.localizedDescription)")
        }
        try atomicWrite(Array(encode(map).utf8), to: path, directory: directory)
    }
}
