import RackEngine
import RackWire

/// The reply to `/rack/preset/list` when it does not fit one datagram (beyond
/// ~910 presets the one-message reply was 62 KB and never arrived). The list is cut into pages
/// `/rack/preset/list/page ,ii s… PAGE PAGES NAME…` of at most `pageBytes` each, in the
/// list's order; `/rack/preset/list i PAGE` asks for one of them, and a plain
/// `/rack/preset/list` whose whole reply exceeds `wholeReplyBytes` is answered with every page.
struct PresetListPages {
    /// Largest whole `/rack/preset/list s…` reply: what one UDP datagram carries safely
    /// everywhere rack has been run (a 62 KB one did not arrive), about 800 names of 16
    /// characters.
    static let wholeReplyBytes = 16 * 1024
    /// Largest page, in bytes on the wire: small enough that a remote sender's reply budget
    /// (4 KB a second) answers one page query at once.
    static let pageBytes = 2048

    /// Each page's names.
    let pages: [[String]]

    init(names: [String]) {
        var pages: [[String]] = []
        var current: [String] = []
        var size = Self.fixedBytes
        for name in names {
            let cost = Self.stringBytes(name) + 1   // the name and its type tag (counted without padding slack)
            if !current.isEmpty && size + cost + 3 > Self.pageBytes {
                pages.append(current)
                current = []
                size = Self.fixedBytes
            }
            current.append(name)
            size += cost
        }
        pages.append(current)   // an empty list is one empty page
        self.pages = pages
    }

    /// Page `index` as a message.
    func message(_ index: Int) -> OSCMessage {
        OSCMessage(OSCReplyAddress.presetListPage, [.int(Int32(index)), .int(Int32(pages.count))] + pages[index].map { .string($0) })
    }

    /// The address padded, the type tag's fixed part (",ii", its NUL, padding) and two ints.
    private static let fixedBytes = stringBytes(OSCReplyAddress.presetListPage) + 4 + 8
    /// An OSC string's bytes: UTF-8, a NUL, padded to four.
    private static func stringBytes(_ s: String) -> Int { (s.utf8.count + 4) & ~3 }
}
