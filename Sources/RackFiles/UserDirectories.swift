import RackEngine
import Foundation

/// Where rack keeps the user's files, by the XDG base directory rules, in one place: presets
/// and the MIDI map under the config directory, the demo loop under the cache directory.
///
/// `$XDG_CONFIG_HOME/rack` (`$XDG_DATA_HOME/rack`, `$XDG_CACHE_HOME/rack`) when that variable is
/// an absolute path, else `$HOME/.config/rack` (`.local/share/rack`, `.cache/rack`) when `HOME`
/// is absolute (unset: the account's home). Otherwise there is none (nil) and whatever needs it
/// is refused with `noHomeReason`: an empty `HOME` would put files under the filesystem root
/// (`/.config/rack`), a relative one under whatever directory rack was started in.
public enum UserDirectories {
    public enum Kind: Sendable {
        case config, data, cache

        var variable: String {
            switch self {
            case .config: "XDG_CONFIG_HOME"
            case .data: "XDG_DATA_HOME"
            case .cache: "XDG_CACHE_HOME"
            }
        }

        var underHome: String {
            switch self {
            case .config: ".config"
            case .data: ".local/share"
            case .cache: ".cache"
            }
        }
    }

    /// rack's directory of `kind` for `environment`, or nil when neither the XDG variable nor
    /// `HOME` is an absolute path.
    public static func directory(_ kind: Kind, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let xdg = environment[kind.variable], xdg.hasPrefix("/") { return xdg + "/rack" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        guard home.hasPrefix("/") else { return nil }
        return home + "/" + kind.underHome + "/rack"
    }

    /// Why there is no directory of `kind`: one line for an error.
    public static func noHomeReason(_ kind: Kind) -> String {
        "neither \(kind.variable) nor HOME names an absolute directory"
    }

    /// rack's directory of `kind`, or an error (73) saying that `what` cannot be written.
    public static func require(_ kind: Kind, for what: String,
                               environment: [String: String] = ProcessInfo.processInfo.environment) throws(RackError) -> String {
        guard let directory = directory(kind, environment: environment) else {
            throw RackError(.cannotCreate, "cannot write \(what): \(noHomeReason(kind))")
        }
        return directory
    }
}
