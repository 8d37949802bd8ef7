import RackOSC

/// rack's version, the one place it is written: `rack --version` prints it. The release is the
/// product's semantic version; the OSC namespace's own version (what `/rack/version` answers) is
/// shown beside it, taken from where it is defined.
enum RackVersion {
    /// The release, MAJOR.MINOR.PATCH.
    static let release = "1.0.0"

    /// What `rack --version` prints: `rack 1.0.0 (OSC namespace 1.5.0)`.
    static var line: String { "rack \(release) (OSC namespace \(RackController.namespaceVersion))" }
}
