import RackEngine
import RackFiles
import RackLV2
import RackPlugin

/// The LV2 bundle's Turtle, generated: every port from `PluginLayout` and the parameter table
/// (ranges, defaults, units, the rooms as scale points), every factory preset as an LV2 preset.
struct LV2Description {
    /// File name → contents, in the order they are written.
    let files: [(String, String)]

    /// Prefixes every file declares (only the ones it uses, so validators see no stray ones).
    private static let prefixes: [(String, String)] = [
        ("doap", "http://usefulinc.com/ns/doap#"),
        ("foaf", "http://xmlns.com/foaf/0.1/"),
        ("lv2", "http://lv2plug.in/ns/lv2core#"),
        ("bufsz", "http://lv2plug.in/ns/ext/buf-size#"),
        ("opts", "http://lv2plug.in/ns/ext/options#"),
        ("pprops", "http://lv2plug.in/ns/ext/port-props#"),
        ("pset", "http://lv2plug.in/ns/ext/presets#"),
        ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
        ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
        ("units", "http://lv2plug.in/ns/extensions/units#"),
        ("urid", "http://lv2plug.in/ns/ext/urid#"),
    ]

    /// The LV2 unit of each unit symbol the table uses for a continuous parameter.
    private static let units: [String: String] = ["Hz": "units:hz", "dB": "units:db", "%": "units:pc", "s": "units:s", "ms": "units:ms"]

    init(presets: [Preset]) throws(RackError) {
        let uri = "<\(PluginLayout.uriString)>"
        var ports: [String] = PluginLayout.AudioPort.allCases.map(Self.audioPort)
        for spec in Parameters.all { ports.append(try Self.controlPort(spec)) }
        ports += PluginMeter.allCases.map(Self.meterPort)
        let plugin = Self.header(["doap", "foaf", "lv2", "bufsz", "opts", "pprops", "rdf", "rdfs", "units", "urid"]) + """
            \(uri)
                a lv2:Plugin , lv2:ReverbPlugin , doap:Project ;
                doap:name \(Self.literal(PluginLayout.name)) ;
                doap:maintainer [ a foaf:Person ; foaf:name \(Self.literal(PluginLayout.maintainer)) ] ;
                rdfs:comment "The rack's graph: resonant low-pass, reverb (\(Parameters[.room].choices.count) rooms), wet/dry mix and output gain. Every control ramps sample-accurately." ;
                lv2:optionalFeature lv2:hardRTCapable , opts:options , urid:map ;
                opts:supportedOption bufsz:maxBlockLength ;
                lv2:port \(ports.joined(separator: " , ")) .

            """
        let manifest = Self.header(["lv2", "pset", "rdfs"]) + """
            \(uri)
                a lv2:Plugin ;
                lv2:binary <\(PluginLayout.binaryName)> ;
                rdfs:seeAlso <rack.ttl> .

            """ + presets.map { preset in
                """

                \(Self.presetURI(preset))
                    a pset:Preset ;
                    lv2:appliesTo \(uri) ;
                    rdfs:seeAlso <presets.ttl> .

                """
            }.joined()
        let presetText = Self.header(["lv2", "pset", "rdfs"]) + presets.map { preset in
            let values = Parameters.all.map { spec in
                "[ lv2:symbol \"\(spec.name)\" ; pset:value \(Self.number(preset.state[spec.id], of: spec)) ]"
            }
            return """

                \(Self.presetURI(preset))
                    a pset:Preset ;
                    lv2:appliesTo \(uri) ;
                    rdfs:label \(Self.literal(preset.name)) ;
                    lv2:port \(values.joined(separator: " , ")) .

                """
        }.joined()
        files = [("manifest.ttl", manifest), ("rack.ttl", plugin), ("presets.ttl", presetText)]
    }

    private static func header(_ used: [String]) -> String {
        prefixes.filter { used.contains($0.0) }.map { "@prefix \($0.0): <\($0.1)> .\n" }.joined() + "\n"
    }

    private static func audioPort(_ port: PluginLayout.AudioPort) -> String {
        """
        [
                a lv2:AudioPort , \(port.isInput ? "lv2:InputPort" : "lv2:OutputPort") ;
                lv2:index \(port.rawValue) ;
                lv2:symbol "\(port.symbol)" ;
                lv2:name "\(port.name)"
            ]
        """
    }

    /// A parameter's control input: the table's range, default and unit; a choice lists its
    /// names as scale points (an on/off choice is also `lv2:toggled`); a logarithmic taper
    /// says so.
    private static func controlPort(_ spec: ParameterSpec) throws(RackError) -> String {
        var lines = [
            "a lv2:InputPort , lv2:ControlPort",
            "lv2:index \(PluginLayout.controlPort(spec.id))",
            "lv2:symbol \"\(spec.name)\"",
            "lv2:name \(literal(spec.name.prefix(1).uppercased() + spec.name.dropFirst()))",
            "rdfs:comment \(literal(spec.summary))",
            "lv2:default \(number(spec.defaultValue, of: spec))",
            "lv2:minimum \(number(spec.minimum, of: spec))",
            "lv2:maximum \(number(spec.maximum, of: spec))",
        ]
        switch spec.taper {
        case .choice:
            let toggled = spec.choices.count == 2 ? " , lv2:toggled" : ""
            lines.append("lv2:portProperty lv2:integer , lv2:enumeration\(toggled)")
            let points = spec.choices.enumerated().map { index, name in
                "[ rdfs:label \(literal(name)) ; rdf:value \(number(spec.minimum + Double(index))) ]"
            }
            lines.append("lv2:scalePoint " + points.joined(separator: " , "))
        case .toggle:
            lines.append("lv2:portProperty lv2:toggled")
        case .logarithmic, .linear:
            guard let unit = units[spec.unit] else {
                throw RackError(.dataError, "lv2-ttl: no LV2 unit for '\(spec.unit)' (parameter \(spec.name))")
            }
            lines.append("units:unit \(unit)")
            if spec.taper == .logarithmic { lines.append("lv2:portProperty pprops:logarithmic") }
        }
        return "[\n        " + lines.joined(separator: " ;\n        ") + "\n    ]"
    }

    /// A meter's control output, in dB (`PluginMeter`): its floor as the minimum, full scale as
    /// the maximum.
    private static func meterPort(_ meter: PluginMeter) -> String {
        let lines = [
            "a lv2:OutputPort , lv2:ControlPort",
            "lv2:index \(PluginLayout.meterPort(meter))",
            "lv2:symbol \"\(meter.symbol)\"",
            "lv2:name \(literal(meter.name))",
            "rdfs:comment \(literal(meter.summary))",
            "lv2:minimum \(number(Double(PluginMeter.floorDecibels)))",
            "lv2:maximum \(number(Double(PluginMeter.ceilingDecibels)))",
            "units:unit units:db",
        ]
        return "[\n        " + lines.joined(separator: " ;\n        ") + "\n    ]"
    }

    /// A preset's URI: the plugin's, `:preset:` and the name percent-encoded.
    private static func presetURI(_ preset: Preset) -> String {
        var encoded = ""
        for byte in preset.name.utf8 {
            let c = Unicode.Scalar(byte)
            let plain = (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "-" || c == "_"
            encoded += plain ? String(c) : "%" + String(byte, radix: 16, uppercase: true)
        }
        return "<\(PluginLayout.uriString):preset:\(encoded)>"
    }

    /// A value of `spec` as a Turtle decimal, rounded as `spec.format` writes it (a choice's
    /// index as it is).
    private static func number(_ value: Double, of spec: ParameterSpec) -> String {
        number(spec.rounded(value))
    }

    /// A number as a Turtle decimal (always with a point: hosts read it as a float).
    private static func number(_ value: Double) -> String {
        let text = formatNumber(value)
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }

    /// A string as a Turtle literal.
    private static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
