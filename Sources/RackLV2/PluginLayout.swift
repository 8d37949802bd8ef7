import RackEngine
import RackPlugin

/// The LV2 plugin's identity and port layout: the one place both the plugin (`RackLV2Plugin`)
/// and the `.ttl` generator (`rack lv2-bundle`) read them from. The control ports are the
/// parameter table's rows, in table order, then the meters (`PluginMeter`); nothing here lists
/// a parameter.
public enum PluginLayout {
    /// The plugin's URI (a URN: rack has no web home that could own an http URI).
    public static let uri: StaticString = "urn:rack:lv2"
    /// The plugin's name as hosts show it (`doap:name`). jalv names its JACK client after it, so
    /// it differs from `rack run`'s default client name, "rack": both can run on one server
    /// under the names they were given.
    public static let name = "rack effects"
    /// Who maintains the plugin as hosts show it (`doap:maintainer`'s `foaf:name`; lv2info's
    /// "Author", the maker a DAW lists). rack has no web home or address to add.
    public static let maintainer = "rack maintainers"
    /// The bundle directory's name.
    public static let bundleName = "rack.lv2"
    /// The shared object's file name inside the bundle (SwiftPM's name for the `rack-lv2`
    /// dynamic library product).
    public static let binaryName = "librack-lv2.so"

    /// The audio ports, first in the port list.
    public enum AudioPort: Int, CaseIterable, Sendable {
        case inputLeft, inputRight, outputLeft, outputRight

        /// The port's LV2 symbol.
        public var symbol: String {
            switch self {
            case .inputLeft: "in_l"
            case .inputRight: "in_r"
            case .outputLeft: "out_l"
            case .outputRight: "out_r"
            }
        }

        /// The port's name as hosts show it.
        public var name: String {
            switch self {
            case .inputLeft: "In L"
            case .inputRight: "In R"
            case .outputLeft: "Out L"
            case .outputRight: "Out R"
            }
        }

        public var isInput: Bool { self == .inputLeft || self == .inputRight }
    }

    /// Index of the first control input port; the control port of parameter `id` is
    /// `firstControlPort + id.rawValue`.
    public static let firstControlPort = AudioPort.allCases.count

    /// The port index of parameter `id`'s control input.
    public static func controlPort(_ id: ParameterID) -> Int { firstControlPort + id.rawValue }

    /// Index of the first meter port (an output control port per `PluginMeter`, in its order),
    /// after the control inputs.
    public static let firstMeterPort = firstControlPort + Parameters.all.count

    /// The port index of meter `meter`'s output.
    public static func meterPort(_ meter: PluginMeter) -> Int { firstMeterPort + meter.rawValue }

    /// How many ports the plugin has.
    public static let portCount = firstMeterPort + PluginMeter.allCases.count

    /// The plugin's URI as a `String`.
    public static var uriString: String { uri.description }
}
