import RackDSP
import RackEngine

/// rack's OSC address space as an OSCQuery tree. The parameters come from the one parameter
/// table (`Parameters.all`: address, unit, range, taper, summary) and the rooms from
/// `Room.allCases` through it; the commands from the one declaration of the address space
/// (`OSCAddressSpace`).
enum OSCQueryNamespace {
    /// OSCQuery `UNIT` strings (the proposal's units.md) for the table's unit symbols; a symbol
    /// with no counterpart there is given as it is.
    static func unit(for symbol: String) -> String {
        switch symbol {
        case "Hz": "time.hz"
        case "dB": "gain.db"
        default: symbol
        }
    }

    /// The whole tree; `presetNames` become the `VALS` of `/rack/preset`. The parameters come
    /// first under `/rack`, then every command `OSCAddressSpace` publishes, in its order, each
    /// under its parent (a container of `OSCAddressSpace.containers` made when first needed).
    static func root(presetNames: [String]) -> OSCQueryNode {
        var root = container("/")
        for spec in Parameters.all { insert(parameter(spec), into: &root) }
        for declaration in OSCAddressSpace.commands {
            if let shape = declaration.query { insert(command(declaration, shape, presetNames: presetNames), into: &root) }
        }
        return root
    }

    /// Puts `node` at its path under `root`, making the containers on the way.
    static func insert(_ node: OSCQueryNode, into root: inout OSCQueryNode) {
        let parts = node.path.split(separator: "/").map(String.init)
        insert(node, parts: parts[...], into: &root)
    }

    private static func insert(_ node: OSCQueryNode, parts: ArraySlice<String>, into parent: inout OSCQueryNode) {
        guard parts.count > 1 else { parent.children.append(node); return }
        let name = parts.first!
        if !parent.children.contains(where: { $0.name == name }) {
            parent.children.append(container((parent.path == "/" ? "" : parent.path) + "/" + name))
        }
        let index = parent.children.firstIndex { $0.name == name }!
        insert(node, parts: parts.dropFirst(), into: &parent.children[index])
    }

    /// A container that is no command (its description from `OSCAddressSpace.containers`).
    static func container(_ path: String) -> OSCQueryNode {
        let description = OSCAddressSpace.containers.first { $0.path == path }?.description ?? ""
        return OSCQueryNode(name: path == "/" ? "" : String(path.split(separator: "/").last ?? ""), path: path,
                            access: 0, description: description)
    }

    /// A declared command as OSCQuery shows it.
    static func command(_ declaration: OSCCommandDeclaration, _ shape: OSCQueryShape, presetNames: [String]) -> OSCQueryNode {
        OSCQueryNode(name: String(declaration.address.split(separator: "/").last ?? ""), path: declaration.address,
                     type: shape.type, access: shape.access, range: shape.range.map { [range($0, presetNames: presetNames)] },
                     unit: shape.unit, clipMode: shape.clipMode, description: declaration.summary)
    }

    /// A `RANGE` entry.
    static func range(_ range: OSCQueryShape.Range, presetNames: [String]) -> JSON {
        switch range {
        case let .minimumMaximum(minimum, maximum): .object([("MIN", .number(minimum)), ("MAX", .number(maximum))])
        case let .minimum(minimum): .object([("MIN", .number(minimum))])
        case .presetNames: .object([("VALS", .array(presetNames.map(JSON.string)))])
        case .parameterNames: .object([("VALS", .array(Parameters.all.map { .string($0.name) }))])
        }
    }

    /// A parameter: its value, range, unit and clipping from the table; its taper as a tag
    /// (`logarithmic`, `linear`, `choice`), so a client can lay out a fader the way rack maps
    /// `/rack/<param>/norm`; its section of the signal chain as `GROUP`. (The `/norm` addresses
    /// are not listed: a node is either a method or a container here, as OSC 1.0 and strict
    /// OSCQuery clients have it; a WebSocket may still LISTEN to one, `WebSocketSession`.)
    static func parameter(_ spec: ParameterSpec) -> OSCQueryNode {
        var node = parameterNode(spec)
        node.group = spec.group.rawValue
        return node
    }

    private static func parameterNode(_ spec: ParameterSpec) -> OSCQueryNode {
        let ramp = "optional second argument: ramp seconds (default \(formatNumber(spec.defaultRampSeconds * 1000)) ms)"
        if spec.taper == .choice {
            return OSCQueryNode(name: spec.name, path: spec.address, type: "s", access: 3,
                                range: [.object([("VALS", .array(spec.choices.map(JSON.string)))])],
                                unit: [unit(for: spec.unit)], clipMode: ["both"], tags: [spec.taper.rawValue],
                                description: "\(spec.summary); \(ramp.replacingOccurrences(of: "ramp", with: "crossfade"))")
        }
        return OSCQueryNode(name: spec.name, path: spec.address, type: "f", access: 3,
                            range: [.object([("MIN", .number(spec.minimum)), ("MAX", .number(spec.maximum))])],
                            unit: [unit(for: spec.unit)], clipMode: ["both"], tags: [spec.taper.rawValue],
                            description: "\(spec.summary) (\(spec.unit), \(spec.taper.rawValue)); \(ramp); "
                                + "\(spec.address)/norm takes a 0…1 control position instead")
    }
}
