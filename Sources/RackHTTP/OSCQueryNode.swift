import RackEngine

/// One node of the OSCQuery namespace (Vidvox OSCQueryProposal): an OSC method, a container, or
/// both. Attributes are kept as the proposal names them; `VALUE` comes from `LiveState`.
struct OSCQueryNode: Sendable {
    /// The last path component ("" for the root).
    var name: String
    /// `FULL_PATH`.
    var path: String
    /// `TYPE`: the OSC type tags a message to this method carries; nil for containers and for
    /// methods that take no arguments.
    var type: String?
    /// `ACCESS`: 0 no value, 1 read, 2 write, 3 both.
    var access: Int
    /// `RANGE`: one entry per type tag ({MIN, MAX} or {VALS}).
    var range: [JSON]?
    /// `UNIT`: one entry per type tag.
    var unit: [String]?
    /// `CLIPMODE`: one entry per type tag ("none", "low", "high", "both").
    var clipMode: [String]?
    /// `TAGS` (rack tags a parameter with its taper).
    var tags: [String]? = nil
    /// `GROUP`, an attribute of rack's own: the section of the signal chain a parameter
    /// belongs to (`filter`, `reverb`, `output`), so a control surface can lay them out.
    var group: String? = nil
    /// `DESCRIPTION`.
    var description: String
    /// `CONTENTS`, in order.
    var children: [OSCQueryNode] = []

    /// The attributes the proposal defines, as `?ATTRIBUTE` queries take them.
    static let attributes: Set<String> = [
        "FULL_PATH", "CONTENTS", "TYPE", "ACCESS", "VALUE", "RANGE", "UNIT", "CLIPMODE", "TAGS", "DESCRIPTION", "GROUP",
    ]

    /// True when the node has a value a client may read.
    var isReadable: Bool { access & 1 != 0 }

    /// The node at `path` under this one ("/" or "" is this node; a trailing slash is allowed).
    func find(_ path: String) -> OSCQueryNode? {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if parts.last == "" { parts = parts.dropLast() }
        var node = self
        for p in parts {
            guard let next = node.children.first(where: { $0.name == p }) else { return nil }
            node = next
        }
        return node
    }

    /// The node as JSON, with its whole subtree, values taken from `values`.
    func json(values: [String: [LiveValue]]) -> JSON {
        var m: [(String, JSON)] = [("FULL_PATH", .string(path))]
        for key in ["TYPE", "ACCESS", "VALUE", "RANGE", "UNIT", "CLIPMODE", "TAGS", "GROUP", "DESCRIPTION"] {
            if let v = attribute(key, values: values) { m.append((key, v)) }
        }
        if !children.isEmpty { m.append(("CONTENTS", .object(children.map { ($0.name, $0.json(values: values)) }))) }
        return .object(m)
    }

    /// One attribute (`?TYPE`, `?VALUE`, …), nil when the node does not have it.
    func attribute(_ key: String, values: [String: [LiveValue]]) -> JSON? {
        switch key {
        case "FULL_PATH": return .string(path)
        case "TYPE": return type.map(JSON.string)
        case "ACCESS": return .number(Double(access))
        case "VALUE":
            guard isReadable, let v = values[path] else { return nil }
            return .array(v.map(\.json))
        case "RANGE": return range.map(JSON.array)
        case "UNIT": return unit.map { .array($0.map(JSON.string)) }
        case "CLIPMODE": return clipMode.map { .array($0.map(JSON.string)) }
        case "TAGS": return tags.map { .array($0.map(JSON.string)) }
        case "GROUP": return group.map(JSON.string)
        case "DESCRIPTION": return .string(description)
        case "CONTENTS":
            return children.isEmpty ? nil : .object(children.map { ($0.name, $0.json(values: values)) })
        default: return nil
        }
    }
}
