import RackEngine
import Foundation
import RackDSP

/// Saves and deletes of user presets. Each is one read-modify-write under the directory's lock
/// (`PresetDirectory`): the files and the numbers index are read again as they are on disk,
/// then changed, so that racks sharing the directory never overwrite each other's numbers or
/// take names that differ only in case.
extension PresetStore {
    /// Saves `state` as the user preset `name`, atomically: write to a temp file in the same
    /// directory, fsync it, rename it over `NAME.json`, fsync the directory. A crash at any
    /// point leaves either the old file or the new one, never a mix.
    /// The name is stored in Unicode's composed form (NFC), so "Café" typed either way is one
    /// file; a name that differs from an existing user preset's only in case (one another rack
    /// saved too) is refused.
    @discardableResult
    public func save(name typed: String, state: RackState) throws(RackError) -> Preset {
        let name = typed.precomposedStringWithCanonicalMapping
        if let reason = Self.problem(withName: name) { throw RackError(.dataError, "preset name \(Preset.excerpt(typed)): \(reason)") }
        if let taken = factory.first(where: { NameMatch.same($0.name, name) }) {
            throw RackError(.dataError, "preset \(JSON.quoted(taken.name)) is a factory preset; save under another name")
        }
        guard let userDirectory else { throw RackError(.cannotCreate, Self.noUserDirectoryReason) }
        do {
            try FileManager.default.createDirectory(atPath: userDirectory, withIntermediateDirectories: true)
        } catch {
            throw RackError(.cannotCreate, "cannot create preset directory '\(userDirectory)'")
        }
        return try PresetDirectory.withLock(userDirectory) { () throws(RackError) -> Preset in
            readUserDirectory(userDirectory)
            return try saveRead(name: name, state: state, directory: userDirectory)
        }
    }

    /// The save, once the directory is locked and read.
    private func saveRead(name: String, state: RackState, directory: String) throws(RackError) -> Preset {
        if let other = user.first(where: { $0.name != name && NameMatch.same($0.name, name) }) {
            throw RackError(.dataError, "preset \(JSON.quoted(name)): user preset \(JSON.quoted(other.name)) differs only in case; save under that name or another")
        }
        if user.count >= maximumUserPresets && !user.contains(where: { $0.name == name }) {
            throw RackError(.cannotCreate, "preset quota reached: at most \(maximumUserPresets) user presets; delete one or overwrite one")
        }
        // Rounded as its file holds it: a recall before and after a restart sounds the same.
        let preset = Preset(name: name, state: state.rounded, isFactory: false, path: directory + "/" + name + ".json")
        // The index first: a save it cannot number is refused before its file is written (the
        // other way round an index that could not be written left the preset saved yet refused).
        // Should the preset's own write fail after it, the index names a file that is not
        // there, which every read drops.
        var assigned = numbers
        if assigned.assign(name) { try assigned.write(directory: directory) }
        try atomicWrite(Array(preset.json.utf8), to: preset.path!, directory: directory)
        numbers = assigned
        user.removeAll { $0.name == name }
        user.append(preset)
        sortUserByNumber()
        userStamp = nil   // changed just now: read again at the next lookup
        return preset
    }

    /// Deletes the user preset `name` (exact first, then ignoring case; one another rack saved
    /// too); its number is freed, the others keep theirs.
    public func delete(name typed: String) throws(RackError) {
        if let reason = Self.problem(withName: typed) { throw RackError(.dataError, "preset name \(Preset.excerpt(typed)): \(reason)") }
        guard let userDirectory else { throw RackError(.dataError, "no user preset \(JSON.quoted(typed))") }
        if let name = NameMatch.find(typed, in: factory.map(\.name)), name == typed || NameMatch.find(typed, in: user.map(\.name)) == nil {
            throw RackError(.dataError, "preset \(JSON.quoted(name)) is a factory preset and cannot be deleted")
        }
        guard FileManager.default.fileExists(atPath: userDirectory) else { throw RackError(.dataError, "no user preset \(JSON.quoted(typed))") }
        try PresetDirectory.withLock(userDirectory) { () throws(RackError) in
            readUserDirectory(userDirectory)
            try deleteRead(typed: typed, directory: userDirectory)
        }
    }

    /// The delete, once the directory is locked and read.
    private func deleteRead(typed: String, directory: String) throws(RackError) {
        guard let name = NameMatch.find(typed, in: user.map(\.name)) else { throw RackError(.dataError, "no user preset \(JSON.quoted(typed))") }
        let path = directory + "/" + name + ".json"
        // The index first, as for a save: a delete it cannot record is refused whole.
        var freed = numbers
        freed.remove(name)
        try freed.write(directory: directory)
        if unlink(path) != 0 && errno != ENOENT {
            let reason = String(cString: strerror(errno))
            try? numbers.write(directory: directory)   // the preset stays, and its number with it
            throw RackError(.ioError, "cannot delete '\(path)': \(reason)")
        }
        user.removeAll { $0.name == name }
        numbers = freed
        userStamp = nil
    }
}
