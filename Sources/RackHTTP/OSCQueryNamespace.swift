import RackDSP
import RackEngine

/// rack's OSC address space as an OSCQuery tree. The parameters come from the one parameter
/// table (`Parameters.all`: address, unit, range, taper, summary) and the rooms from
/// `Room.allCases` through it; the rest mirrors the OSC reference in the README.
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

    /// The whole tree; `presetNames` become the `VALS` of `/rack/preset`.
    static func root(presetNames: [String]) -> OSCQueryNode {
        let rack = OSCQueryNode(name: "rack", path: "/rack", access: 0, description: "rack: a JACK effects rack",
                                children: Parameters.all.map(parameter) + [
                                    preset(presetNames), player(),
                                ] + queries())
        let ping = method("/ping", description: "replies /pong")
        return OSCQueryNode(name: "", path: "/", access: 0, description: "rack", children: [rack, ping])
    }

    /// A parameter: its value, range, unit and clipping from the table; its taper as a tag
    /// (`logarithmic`, `linear`, `choice`), so a client can lay out a fader the way rack maps
    /// `/rack/<param>/norm`. (The `/norm` addresses are not listed: a node is either a method or
    /// a container here, as OSC 1.0 and strict OSCQuery clients have it.)
    static func parameter(_ spec: ParameterSpec) -> OSCQueryNode {
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

    static func preset(_ names: [String]) -> OSCQueryNode {
        OSCQueryNode(name: "preset", path: "/rack/preset", type: "s", access: 0,
                     range: [.object([("VALS", .array(names.map(JSON.string)))])],
                     description: "recall a preset by name (every parameter ramps); LISTEN here for each recall",
                     children: [
                        method("/rack/preset/save", type: "s", description: "save the current targets as a user preset"),
                        method("/rack/preset/delete", type: "s", description: "delete a user preset"),
                        method("/rack/preset/list", description: "replies /rack/preset/list s… (every preset, factory first)"),
                     ])
    }

    static func player() -> OSCQueryNode {
        OSCQueryNode(name: "player", path: "/rack/player", access: 0, description: "the file player", children: [
            method("/rack/player/load", type: "s", description: "stream a file (crossfades from the previous one)"),
            method("/rack/player/play", description: "start (5 ms fade)"),
            method("/rack/player/stop", description: "stop (5 ms fade)"),
            OSCQueryNode(name: "loop", path: "/rack/player/loop", type: "i", access: 0,
                         range: [.object([("MIN", .number(0)), ("MAX", .number(1))])], clipMode: ["none"],
                         description: "loop the file: 1 on (default), 0 off"),
            OSCQueryNode(name: "seek", path: "/rack/player/seek", type: "f", access: 0,
                         range: [.object([("MIN", .number(0))])], unit: ["time.second"], clipMode: ["both"],
                         description: "jump to a position in the file, crossfading"),
        ])
    }

    /// The query methods: their replies go to the sender (over a WebSocket: to that socket).
    static func queries() -> [OSCQueryNode] {
        [
            method("/rack/get", type: "s", description: "replies /rack/<param> with the target value",
                   range: [.object([("VALS", .array(Parameters.all.map { .string($0.name) }))])]),
            method("/rack/dump", description: "replies every parameter's target and the last preset"),
            method("/rack/subscribe", type: "i", description: "every applied change, from any source, to the sender (optional port)",
                   range: [.object([("MIN", .number(1)), ("MAX", .number(65535))])]),
            method("/rack/unsubscribe", type: "i", description: "ends changes and meters to the sender (optional port)",
                   range: [.object([("MIN", .number(1)), ("MAX", .number(65535))])]),
            OSCQueryNode(name: "meter", path: "/rack/meter", type: "fffffii", access: 1,
                         unit: ["gain.db", "gain.db", "gain.db", "gain.db", "%", "", ""],
                         description: "peak L, peak R, RMS L, RMS R (dBFS, -120 for silence), DSP load, xruns, ramping parameters; "
                            + "LISTEN for 15 updates a second (over UDP: send /rack/meter [i port])"),
            OSCQueryNode(name: "status", path: "/rack/status", type: "iiiffsis", access: 1,
                         unit: ["time.hz", "", "", "%", "time.second", "", "", ""],
                         description: "sample rate, buffer frames, xruns, DSP load, player position, JACK state (running or "
                            + "disconnected), input samples replaced by silence (not audio), why the player stopped by "
                            + "itself (a truncated or corrupt file; empty otherwise)"),
            method("/rack/params", description: "replies /rack/params s:id s:unit f:min f:max f:default s:taper per parameter"),
            OSCQueryNode(name: "version", path: "/rack/version", type: "s", access: 1, description: "the OSC namespace version"),
            method("/rack/stats", description: "replies DSP time per JACK cycle since the last /rack/stats"),
        ]
    }

    /// A method that holds no value (`ACCESS` 0): it acts, or replies to the sender; `type` nil
    /// when it takes no arguments.
    static func method(_ path: String, type: String? = nil, description: String, range: [JSON]? = nil) -> OSCQueryNode {
        OSCQueryNode(name: String(path.split(separator: "/").last ?? ""), path: path, type: type,
                     access: 0, range: range, description: description)
    }
}
