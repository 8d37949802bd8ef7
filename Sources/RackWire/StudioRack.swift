/// Another rack on the network, as DNS-SD shows it: what the web page's "Racks in this studio"
/// lists.
///
/// rack recognises another rack by the TXT string `rack-page=PATH` on its `_oscjson._tcp`
/// service (every rack publishes it; other OSCQuery servers do not): PATH is where its web page
/// lives on the advertised port.
public struct StudioRack: Sendable, Hashable {
    /// The TXT key a rack's `_oscjson._tcp` service carries, its value the page's path.
    public static let pageKey = "rack-page"

    /// The DNS-SD service name (the rack's JACK client name, or "NAME #2" after a collision).
    public let name: String
    /// The host it runs on, as that host announces itself ("studio-b.local").
    public let host: String
    /// The IPv4 address the service resolved to, dotted.
    public let address: String
    /// The HTTP port of its OSCQuery server and page.
    public let httpPort: Int
    /// The path of its page on that port ("/ui/").
    public let pagePath: String

    /// The page's address, built from the resolved address (a `.local` name needs mDNS in the
    /// browser's resolver, which a machine may not have).
    public var pageURL: String { "http://\(address):\(httpPort)\(pagePath)" }

    /// Longest name and host accepted (DNS: a label is at most 63 bytes, a name 255).
    public static let maximumNameBytes = 63
    public static let maximumHostBytes = 255
    /// Longest page path accepted.
    public static let maximumPathBytes = 64

    /// A rack from what a resolver reported, or nil when it is not a rack (no `rack-page`) or
    /// any part is unusable: a name or host too long or not text, an address that is not IPv4,
    /// a port outside 1…65535, a path that is not `/` followed by letters, digits and `/._-`
    /// (it goes into a link: nothing there may escape the URL).
    /// Invisible format characters (bidi overrides and isolates such as U+202E, zero-width
    /// spaces and joiners, soft hyphens: Unicode's Cf) and line or paragraph separators are
    /// taken out of the name and host first, so what the page shows is what is there.
    public init?(name raw: String, host rawHost: String, address: String, port: Int, pagePath: String?) {
        let name = Self.visible(raw), host = Self.visible(rawHost)
        guard let pagePath, Self.isSafePath(pagePath),
              !name.isEmpty, name.utf8.count <= Self.maximumNameBytes, !name.unicodeScalars.contains(where: Self.isControl),
              !host.isEmpty, host.utf8.count <= Self.maximumHostBytes, !host.unicodeScalars.contains(where: Self.isControl),
              (1...65535).contains(port), OSCEndpoint(host: address, port: 0) != nil
        else { return nil }
        self.name = name
        self.host = host
        self.address = address
        self.httpPort = port
        self.pagePath = pagePath
    }

    private static func isControl(_ u: Unicode.Scalar) -> Bool { u.value < 0x20 || u.value == 0x7f }

    /// `text` without the characters that show nothing or reorder what follows them.
    static func visible(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            switch u.properties.generalCategory {
            case .format, .lineSeparator, .paragraphSeparator: continue
            default: out.append(u)
            }
        }
        return String(out)
    }

    private static func isSafePath(_ path: String) -> Bool {
        guard path.hasPrefix("/"), path.utf8.count <= maximumPathBytes else { return false }
        return path.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || "/._-".utf8.contains(c)
        }
    }
}
