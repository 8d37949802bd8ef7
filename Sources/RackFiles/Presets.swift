import RackEngine
import Foundation
import RackPathText
import RackDSP

/// Factory and user presets. Factory presets are numbered 0, 1, 2… in name order; user presets
/// −1, −2, … (Apple's AUAudioUnitPreset scheme), each keeping its number across saves and
/// deletes of others (`PresetNumbers`). A user preset may not take a factory preset's name.
/// Names are looked up exact first, then ignoring case (`NameMatch`).
public final class PresetStore: @unchecked Sendable {
    public let factoryDirectory: String?
    /// Where user presets live; nil when the environment names no home (`HOME` empty or
    /// relative and no absolute `XDG_CONFIG_HOME`): then there are no user presets and a save
    /// is refused, rather than written under the filesystem root.
    public let userDirectory: String?
    public private(set) var factory: [Preset] = []
    /// User presets in number order: −1, −2, …
    public internal(set) var user: [Preset] = []
    var numbers = PresetNumbers()
    /// One line per file that could not be loaded (file and reason); those files are skipped.
    public var problems: [RackError] { factoryProblems + userProblems }
    private var factoryProblems: [RackError] = []
    var userProblems: [RackError] = []
    /// The user directory as it was when last read, or nil when the next lookup must read it
    /// again (it changed too recently for its stamp to show the next change: `DirectoryStamp`).
    var userStamp: DirectoryStamp?

    /// User presets a store holds at most, by default: 1,000 files of about 150 bytes (each at
    /// most `Preset.maximumFileBytes`), so a stream of saves, local or remote, cannot fill the
    /// disk or make the list and the page grow without bound.
    public static let defaultMaximumUserPresets = 1_000
    /// User presets this store holds at most; a save of a new name beyond it is refused
    /// (overwriting an existing one is not).
    public var maximumUserPresets = PresetStore.defaultMaximumUserPresets

    /// Temp files of an interrupted save carry this in their name.
    static let tempMarker = ".rack-tmp-"

    public init(factoryDirectory: String?, userDirectory: String?) {
        self.factoryDirectory = factoryDirectory
        self.userDirectory = userDirectory
        reload()
    }

    /// The store at the standard places: factory presets found by `locateFactoryDirectory`,
    /// user presets in `$XDG_CONFIG_HOME/rack/presets` or `~/.config/rack/presets`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> PresetStore {
        PresetStore(factoryDirectory: locateFactoryDirectory(environment: environment),
                    userDirectory: defaultUserDirectory(environment: environment))
    }

    /// `presets` in rack's config directory (`UserDirectories`): nil when the environment names
    /// no home (an empty `HOME` would put presets in `/.config` at the filesystem root).
    public static func defaultUserDirectory(environment: [String: String]) -> String? {
        UserDirectories.directory(.config, environment: environment).map { $0 + "/presets" }
    }

    /// Why user presets cannot be saved in this environment.
    public static let noUserDirectoryReason = "cannot save presets: " + UserDirectories.noHomeReason(.config)

    /// `$RACK_PRESETS` if set; else `share/rack/presets` beside an installed binary; else the
    /// `Presets/` folder of the source tree the binary was built in.
    public static func locateFactoryDirectory(environment: [String: String]) -> String? {
        if let dir = environment["RACK_PRESETS"] { return dir }
        // The running binary itself (/proc/self/exe): argv[0] is only "rack" when run from PATH.
        let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? "."
        let exe = URL(fileURLWithPath: selfPath).resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        let installed = dir.deletingLastPathComponent().appendingPathComponent("share/rack/presets")
        if FileManager.default.fileExists(atPath: installed.path) { return installed.path }
        for _ in 0..<6 {
            let candidate = dir.appendingPathComponent("Presets")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Warm.json").path) { return candidate.path }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    /// Most UTF-8 bytes of a preset name: `NAME.json` stays well inside a file name's 255 bytes
    /// (64 characters of most scripts are at most 192 bytes).
    public static let maximumNameBytes = 200

    /// Why `name` cannot be a preset name, or nil when it can: 1–64 characters of letters (of
    /// any script, "Café Hall"), digits, space, '-', '_', starting with a letter or digit, at
    /// most `maximumNameBytes` bytes. Never a path: no '/', '.', control or format character.
    public static func problem(withName name: String) -> String? {
        if name.isEmpty { return "a preset name cannot be empty" }
        if name.count > 64 { return "a preset name has at most 64 characters" }
        let allowed = { (c: Character) in c.isLetter || c.isNumber || c == " " || c == "-" || c == "_" }
        let scalarsAllowed = name.unicodeScalars.allSatisfy { scalar in
            let category = scalar.properties.generalCategory
            return scalar.properties.isAlphabetic || scalar.properties.numericType != nil || category == .nonspacingMark
                || category == .spacingMark || scalar == " " || scalar == "-" || scalar == "_"
        }
        guard name.allSatisfy(allowed) && scalarsAllowed else {
            return "a preset name has only letters, digits, space, '-' and '_'"
        }
        guard name.utf8.count <= maximumNameBytes else { return "a preset name has at most \(maximumNameBytes) bytes of UTF-8" }
        let first = name.first!
        guard first.isLetter || first.isNumber else { return "a preset name starts with a letter or digit" }
        return nil
    }

    /// The unknown-preset error: the name (quoted short) and the presets there are, at most
    /// `namesInUnknownReason` of them, then how many more.
    public func unknownNameReason(_ typed: String) -> String {
        Self.unknownNameReason(typed, among: all.map(\.name))
    }

    /// The unknown-preset error for `typed` among `names` (in the order given).
    public static func unknownNameReason(_ typed: String, among names: [String]) -> String {
        var listed = names.prefix(Self.namesInUnknownReason).map { "'\($0)'" }.joined(separator: ", ")
        if names.count > Self.namesInUnknownReason { listed += " and \(names.count - Self.namesInUnknownReason) more (rack presets list)" }
        let typedText = typed.count > Preset.excerptCharacters ? Preset.excerpt(typed) : "'\(typed)'"
        return "unknown preset \(typedText) (" + (names.isEmpty ? "there are no presets" : "one of \(listed)") + ")"
    }

    /// Presets an unknown-preset error lists at most.
    public static let namesInUnknownReason = 20

    /// Reads both directories again.
    public func reload() {
        factoryProblems = []
        factory = factoryDirectory.map { load(directory: $0, isFactory: true) } ?? []
        guard let userDirectory else { user = []; numbers = PresetNumbers(); return }
        PresetDirectory.withLockIfPossible(userDirectory) { readUserDirectory(userDirectory) }
    }

    /// Reads the user directory again when another rack (another store on the same directory)
    /// saved or deleted a preset since it was read: one `stat` when nothing changed. Called by
    /// every lookup and list, on the control thread.
    public func refreshIfChanged() {
        guard let userDirectory else { return }
        if let userStamp, userStamp == DirectoryStamp.of(userDirectory) { return }
        PresetDirectory.withLockIfPossible(userDirectory) { readUserDirectory(userDirectory) }
    }

    /// Reads the user presets and their numbers as they are on disk, under the directory's
    /// lock. Temp files left by an interrupted save (no save is under way while the lock is
    /// held) are removed first.
    func readUserDirectory(_ directory: String) {
        let stamp = DirectoryStamp.of(directory)
        userProblems = []
        cleanUpTemporaryFiles()
        user = load(directory: directory, isFactory: false)
        numberUserPresets(directory)
        userStamp = stamp.isSettled ? stamp : nil
    }

    /// Reads the numbers index and numbers the presets it does not know (name order, smallest
    /// free number first); rewrites it when that changed anything.
    private func numberUserPresets(_ userDirectory: String) {
        numbers = PresetNumbers.read(directory: userDirectory, existing: PresetNumbers.presetFiles(in: userDirectory)) {
            userProblems.append(RackError(.dataError, $0))
        }
        var changed = false
        for preset in user where numbers.assign(preset.name) { changed = true }
        sortUserByNumber()
        guard changed else { return }
        do { try numbers.write(directory: userDirectory) } catch { userProblems.append(error) }
    }

    func sortUserByNumber() {
        user.sort { (numbers.number(of: $0.name) ?? 0) > (numbers.number(of: $1.name) ?? 0) }
    }

    private func load(directory: String, isFactory: Bool) -> [Preset] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var presets: [Preset] = []
        for file in names.sorted() where file.hasSuffix(".json") && !file.hasPrefix(".") {
            let path = directory + "/" + file
            do {
                let data = try Preset.readFile(path)
                let preset = try Preset.parse(data, isFactory: isFactory, path: path)
                if !isFactory && file != preset.name + ".json" {
                    throw RackError(.dataError, "preset '\(path)': its name \(Preset.excerpt(preset.name)) does not match the file name")
                }
                if presets.contains(where: { $0.name == preset.name }) || (!isFactory && factory.contains { $0.name == preset.name }) {
                    throw RackError(.dataError, "preset '\(path)': another preset is already named \(JSON.quoted(preset.name))")
                }
                // Names are unique ignoring case: the first file in name order is the preset.
                if !isFactory, let other = presets.first(where: { NameMatch.same($0.name, preset.name) }) {
                    throw RackError(.dataError, "preset '\(path)': its name differs only in case from user preset \(JSON.quoted(other.name)); skipped")
                }
                presets.append(preset)
            } catch {
                let problem = (error as? RackError) ?? RackError(.dataError, "preset '\(path)': \(error)")
                if isFactory { factoryProblems.append(problem) } else { userProblems.append(problem) }
            }
        }
        return presets.sorted { $0.name < $1.name }
    }

    private func cleanUpTemporaryFiles() {
        guard let userDirectory, let names = try? FileManager.default.contentsOfDirectory(atPath: userDirectory) else { return }
        for file in names where file.contains(Self.tempMarker) {
            try? FileManager.default.removeItem(atPath: userDirectory + "/" + file)
        }
    }

    /// Every preset: factory ones first.
    public var all: [Preset] { factory + user }

    /// The preset named `name`: exact first, then ignoring case (the user directory re-read
    /// first when it changed).
    public func preset(named name: String) -> Preset? {
        refreshIfChanged()
        guard let match = NameMatch.find(name, in: all.lazy.map(\.name)) else { return nil }
        return all.first { $0.name == match }
    }

    /// The preset `text` names: a name (exact first, then ignoring case), else a number
    /// (factory ≥ 0, user < 0).
    public func preset(namedOrNumbered text: String) -> Preset? {
        preset(named: text) ?? Int(text).flatMap { preset(index: $0) }
    }

    /// The preset numbered `index` (factory ≥ 0, user < 0).
    public func preset(index: Int) -> Preset? {
        if index >= 0 { return index < factory.count ? factory[index] : nil }
        refreshIfChanged()
        guard let name = numbers.name(numbered: index) else { return nil }
        return user.first { $0.name == name }
    }

    /// The number of a preset in Apple's scheme.
    public func index(of preset: Preset) -> Int? {
        if let i = factory.firstIndex(where: { $0.name == preset.name }), preset.isFactory { return i }
        return numbers.number(of: preset.name)
    }
}
