import RackEngine
import Foundation
import RackPathText
import RackDSP

/// A preset: a name and a target for every parameter.
public struct Preset: Sendable, Equatable {
    public let name: String
    public let state: RackState
    /// Factory presets ship in `Presets/`; user presets live in the user preset directory.
    public let isFactory: Bool
    /// Where it was read from (nil for one made in memory).
    public let path: String?

    public init(name: String, state: RackState, isFactory: Bool, path: String? = nil) {
        self.name = name
        self.state = state
        self.isFactory = isFactory
        self.path = path
    }

    /// The preset JSON as documented: `{"name": …, "cutoff": …, …, "room": "…"}`, keys in
    /// parameter-table order.
    public var json: String {
        let fields = [("name", JSON.quoted(name))] + state.encodedFields.map { ($0.name, $0.json) }
        return "{\n" + fields.map { "  \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n}\n"
    }

    /// Largest preset file read, in bytes: a preset is about 150 bytes; a larger file is refused
    /// before it is read, so a huge file costs neither memory nor start-up time.
    public static let maximumFileBytes = 64 * 1024
    /// Most characters of a bad value quoted in a message (the state codec's).
    public static var excerptCharacters: Int { StateFieldProblem.excerptCharacters }

    /// `value` quoted for a message, at most `excerptCharacters` of it.
    static func excerpt(_ value: String) -> String { StateFieldProblem.excerpt(value) }

    /// Reads a preset file of at most `limit` bytes; a larger one (or one that is not a
    /// regular file) is refused after one `fstat`, without reading it.
    static func readFile(_ path: String, limit: Int = Preset.maximumFileBytes) throws(RackError) -> Data {
        let maximumFileBytes = limit
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw RackError(.noInput, "preset '\(path)': cannot be read (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw RackError(.noInput, "preset '\(path)': not a regular file")
        }
        guard info.st_size <= maximumFileBytes else {
            throw RackError(.dataError, "preset '\(path)': \(info.st_size) bytes, larger than the \(maximumFileBytes) a preset file may have")
        }
        var bytes = [UInt8](repeating: 0, count: maximumFileBytes + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw RackError(.noInput, "preset '\(path)': cannot be read (\(String(cString: strerror(errno))))") }
            if n == 0 { break }
            count += n
        }
        guard count <= maximumFileBytes else {
            throw RackError(.dataError, "preset '\(path)': larger than the \(maximumFileBytes) bytes a preset file may have")
        }
        return Data(bytes[..<count])
    }

    /// Parses and validates preset JSON through the state codec (`RackState.decode`): a
    /// parameter left out takes its row's missing-field value; unknown fields, wrong types and
    /// out-of-range values are errors (the reason names the field).
    public static func parse(_ data: Data, isFactory: Bool, path: String?) throws(RackError) -> Preset {
        let where_ = path.map { "preset '\($0)'" } ?? "preset"
        func fail(_ reason: String) -> RackError { RackError(.dataError, "\(where_): \(reason)") }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw fail("not valid JSON (\(data.isEmpty ? "empty file" : "truncated or malformed"))")
        }
        guard let dict = object as? [String: Any] else { throw fail("expected a JSON object") }
        let known = Set(["name"] + Parameters.all.map(\.name))
        if let unknown = dict.keys.sorted().first(where: { !known.contains($0) }) {
            let field = unknown.count > excerptCharacters ? excerpt(unknown) : "'\(unknown)'"
            throw fail("unknown field \(field) (fields: \(["name"] + Parameters.all.map(\.name)))")
        }
        guard let nameValue = dict["name"] else { throw fail("missing field 'name'") }
        guard let name = nameValue as? String, !isBool(nameValue) else { throw fail("field 'name' must be a string") }
        if let reason = PresetStore.problem(withName: name) { throw fail("name \(excerpt(name)): \(reason)") }
        let state: RackState
        do {
            state = try RackState.decode(stateFields(dict), outOfRange: .refuse)
        } catch {
            throw fail(error.reason)
        }
        return Preset(name: name, state: state, isFactory: isFactory, path: path)
    }
}

/// A JSON object's members (as `JSONSerialization` reads them) as the state codec takes them:
/// preset and session files alike (a bool is no number).
public func stateFields(_ dict: [String: Any]) -> [String: StateValue] {
    dict.mapValues { raw in
        if isBool(raw) { return .other }
        if let s = raw as? String { return .string(s) }
        if let n = raw as? NSNumber { return .number(n.doubleValue) }
        return .other
    }
}

private func isBool(_ value: Any) -> Bool {
    guard let n = value as? NSNumber else { return false }
    return String(cString: n.objCType) == "c" || type(of: value) == Bool.self
}
