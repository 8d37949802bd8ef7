import Foundation
import RackPathText
import RackWire

/// What rack grants a sender depending on where it is. 127.0.0.1 (`OSCEndpoint.isLocal`, the
/// one locality rule) is this machine's own user: it is trusted as before. Every other address, other loopback addresses (127.0.0.2, …)
/// included, is *remote*: its replies are bounded (`ReplyBudget`), its subscriptions are leases,
/// it may load files only from `--media-dir` directories and learns nothing about other files.
/// (Counting 127.0.0.2 as remote is stricter than needed, and lets the tests play a remote
/// sender on one machine.)
public struct ExposurePolicy: Sendable {
    /// How long a subscription (`/rack/subscribe`, `/rack/meter`) from a remote sender lasts
    /// unless renewed by sending it again, in seconds.
    public static let defaultLeaseSeconds = 60.0
    /// How long a `/rack/meter` subscription from a remote sender lasts unless renewed, in
    /// seconds, at most: meters are pushed 15 times a second whatever happens, so under the
    /// 60 s lease one 20-byte request brought 300 datagrams, 15,600 bytes, in 20 s (all within
    /// the reply budget's allowance); under this, 74 datagrams, 3,848 bytes (`RemoteMeterTests`).
    public static let defaultMeterLeaseSeconds = 5.0
    /// The one reply a remote sender gets for any file it may not or cannot load: whether the
    /// file exists, is readable or is audio is not told.
    public static let refusedLoad = "cannot load this file"

    /// Real paths (symbolic links resolved) of the `--media-dir` directories.
    public let mediaDirectories: [String]
    /// Subscription lease for remote senders, in seconds.
    public let leaseSeconds: Double
    /// Meter subscription lease for remote senders, in seconds: `defaultMeterLeaseSeconds`, or
    /// the subscription lease when that is shorter.
    public var meterLeaseSeconds: Double { min(leaseSeconds, Self.defaultMeterLeaseSeconds) }

    public init(mediaDirectories: [String] = [], leaseSeconds: Double = defaultLeaseSeconds) {
        self.mediaDirectories = mediaDirectories.compactMap(Self.realPath)
        self.leaseSeconds = leaseSeconds
    }

    /// The real path of `path` when it names a file inside one of the media directories (after
    /// resolving every symbolic link and `..`), else nil. The caller opens the returned path, so
    /// a link swapped in between cannot lead outside.
    public func mediaFile(_ path: String) -> String? {
        guard !mediaDirectories.isEmpty, let real = Self.realPath(path) else { return nil }
        return mediaDirectories.contains { real.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") } ? real : nil
    }

    /// `realpath(3)`: nil when the path does not exist.
    static func realPath(_ path: String) -> String? {
        guard !path.isEmpty, !path.utf8.contains(0), let p = PathText.withCPath(path, { realpath($0, nil) }) else { return nil }
        defer { free(p) }
        return PathText.fromCString(p)
    }
}
