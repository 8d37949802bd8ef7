import Foundation
import RackDSP

/// Saves and deletes of user presets.
extension PresetStore {
    /// Saves `state` as the user preset `name`, atomically: write to a temp file in the same
    /// directory, fsync it, rename it over `NAME.json`, fsync the directory. A crash at any
    /// point leaves either the old file or the new one, never a mix.
    /// The name is stored in Unicode's composed form (NFC), so "Café" typed either way is one
    /// file; a name that differs from an existing user preset's only in case is refused.
    @discardableResult
    public func save(name typed: String, state: RackState) throws(RackError) -> Preset {
        let name = typed.precomposedStringWithCanonicalMapping
        if let reason = Self.problem(withName: name) { throw RackError(.dataError, "preset name \(Preset.excerpt(typed)): \(reason)") }
        if let taken = factory.first(where: { NameMatch.same($0.name, name) }) {
            throw RackError(.dataError, "preset \(JSON.quoted(taken.name)) is a factory preset; save under another name")
        }
        if let other = user.first(where: { $0.name != name && NameMatch.same($0.name, name) }) {
            throw RackError(.dataError, "preset \(JSON.quoted(name)): user preset \(JSON.quoted(other.name)) differs only in case; save under that name or another")
        }
        guard let userDirectory else { throw RackError(.cannotCreate, Self.noUserDirectoryReason) }
        if user.count >= maximumUserPresets && !user.contains(where: { $0.name == name }) {
            throw RackError(.cannotCreate, "preset quota reached: at most \(maximumUserPresets) user presets; delete one or overwrite one")
        }
        // Rounded as its file holds it: a recall before and after a restart sounds the same.
        let preset = Preset(name: name, state: state.rounded, isFactory: false, path: userDirectory + "/" + name + ".json")
        do {
            try FileManager.default.createDirectory(atPath: userDirectory, withIntermediateDirectories: true)
        } catch {
            throw RackError(.cannotCreate, "cannot create preset directory '\(userDirectory)'")
        }
        // The index first: a save it cannot number is refused before its file is written (the
        // other way round an index that could not be written left the preset saved yet refused).
        // Should the preset's own write fail after it, the index names a file that is not
        // there, which every read drops.
        var assigned = numbers
        if assigned.number(of: name) == nil {
            assigned = numbersOnDisk(directory: userDirectory)
            for preset in user.sorted(by: { $0.name < $1.name }) where preset.name != name { assigned.assign(preset.name) }
            assigned.assign(name)
            try assigned.write(directory: userDirectory)
        }
        try atomicWrite(Array(preset.json.utf8), to: preset.path!, directory: userDirectory)
        numbers = assigned
        user.removeAll { $0.name == name }
        user.append(preset)
        sortUserByNumber()
        return preset
    }

    /// This store's numbers with those another process (a second rack on the same directory)
    /// gave since this store read them, so that a save never hands out a number already taken on disk.
    private func numbersOnDisk(directory: String) -> PresetNumbers {
        let onDisk = PresetNumbers.read(directory: directory, existing: PresetNumbers.presetFiles(in: directory)) { _ in }
        return onDisk.merged(with: numbers)
    }

    /// Deletes the user preset `name` (exact first, then ignoring case); its number is freed,
    /// the others keep theirs.
    public func delete(name typed: String) throws(RackError) {
        if let reason = Self.problem(withName: typed) { throw RackError(.dataError, "preset name \(Preset.excerpt(typed)): \(reason)") }
        let name = preset(named: typed)?.name ?? typed
        if factory.contains(where: { $0.name == name }) {
            throw RackError(.dataError, "preset \(JSON.quoted(name)) is a factory preset and cannot be deleted")
        }
        guard let userDirectory, user.contains(where: { $0.name == name }) else { throw RackError(.dataError, "no user preset \(JSON.quoted(typed))") }
        let path = userDirectory + "/" + name + ".json"
        // The index first, as for a save: a delete it cannot record is refused whole.
        var freed = numbers
        freed.remove(name)
        try freed.write(directory: userDirectory)
        if unlink(path) != 0 && errno != ENOENT {
            let reason = String(cString: strerror(errno))
            try? numbers.write(directory: userDirectory)   // the preset stays, and its number with it
            throw RackError(.ioError, "cannot delete '\(path)': \(reason)")
        }
        user.removeAll { $0.name == name }
        numbers = freed
    }
}
