import RackEngine
import Foundation

/// The numbers of the user presets, kept in the preset directory's index file
/// (`.numbers.json`: `{"-1": "Night Set", "-2": "Alpha"}`), so that a preset keeps its number
/// across saves and deletes of others and across restarts: what `--preset -2`, `/rack/preset i`
/// and a MIDI program change recall does not move.
///
/// - A preset without a number (an old directory, a file copied in by hand) takes the
///   smallest free number, −1, −2, …, in name order: an old directory is numbered once, as it
///   was numbered before (name order), and then keeps those numbers.
/// - A new save takes the smallest free number; a delete frees its number.
/// - Entries whose `NAME.json` is gone are dropped; the file is rewritten (atomically) only
///   when the numbers changed.
struct PresetNumbers {
    /// The index file's name: it starts with '.', which no preset name can, so it is never
    /// read as a preset.
    static let fileName = ".numbers.json"
    /// Largest index file read: 1,000 presets of 64 characters are about 80 KB.
    static let maximumFileBytes = 1 << 20

    /// Name → number (negative).
    private(set) var byName: [String: Int] = [:]

    /// The number of `name`, if it has one.
    func number(of name: String) -> Int? { byName[name] }

    /// The name numbered `number`.
    func name(numbered number: Int) -> String? { byName.first { $0.value == number }?.key }

    /// The smallest free number (−1, −2, …).
    func nextFree() -> Int {
        let used = Set(byName.values)
        var n = -1
        while used.contains(n) { n -= 1 }
        return n
    }

    /// Gives `name` the smallest free number unless it has one; true when it changed.
    @discardableResult
    mutating func assign(_ name: String) -> Bool {
        guard byName[name] == nil else { return false }
        byName[name] = nextFree()
        return true
    }

    /// The names of the preset files in `directory` (`NAME.json`, the index itself excluded).
    static func presetFiles(in directory: String) -> Set<String> {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(files.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) })
    }

    /// Frees the number of `name`.
    mutating func remove(_ name: String) { byName[name] = nil }

    /// Reads the index of `directory`: the numbers of the files that exist there, the first
    /// entry of a name or number winning. A missing file is an empty index; a bad one is
    /// reported through `problem` and read as empty (the presets are then numbered afresh).
    static func read(directory: String, existing: Set<String>, problem: (String) -> Void) -> PresetNumbers {
        var numbers = PresetNumbers()
        let path = directory + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return numbers }
        let data: Data
        do { data = try Preset.readFile(path, limit: maximumFileBytes) } catch {
            problem(error.message)
            return numbers
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            problem("preset numbers '\(path)': not a JSON object of number → name; the presets are numbered afresh")
            return numbers
        }
        for key in object.keys.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            guard let n = Int(key), n < 0, let name = object[key] as? String, existing.contains(name),
                  numbers.byName[name] == nil, numbers.name(numbered: n) == nil else { continue }
            numbers.byName[name] = n
        }
        return numbers
    }

    /// The index file's text: one `"NUMBER": "NAME"` a line, −1 first.
    var text: String {
        let lines = byName.sorted { $0.value > $1.value }.map { "  \(JSON.quoted(String($0.value))): \(JSON.quoted($0.key))" }
        return "{\n" + lines.joined(separator: ",\n") + (lines.isEmpty ? "" : "\n") + "}\n"
    }

    /// Writes the index into `directory`, atomically.
    func write(directory: String) throws(RackError) {
        try atomicWrite(Array(text.utf8), to: directory + "/" + Self.fileName, directory: directory)
    }
}
