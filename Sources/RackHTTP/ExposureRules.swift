import Foundation

/// Who may talk to rack over HTTP, decided from the request's `Host` and `Origin` headers.
///
/// - `Host` must name the rack by address or as `localhost`, the machine's host name or its
///   `.local` name: a page elsewhere that points its own DNS name at 127.0.0.1 (DNS rebinding)
///   cannot read or drive a rack through the browser.
/// - A WebSocket upgrade whose `Origin` is not the page's own (`http://` + `Host`) is refused:
///   a web page from elsewhere must not drive a rack on localhost. Clients that are not browsers
///   send no `Origin` and are accepted.
struct ExposureRules: Sendable {
    /// Host names besides addresses and `localhost` that name this machine (lower case).
    let machineNames: Set<String>

    init(machineNames: Set<String>) {
        self.machineNames = Set(machineNames.map { $0.lowercased() })
    }

    /// The machine's own names: its host name and `NAME.local` (what Avahi answers to).
    static func currentMachine() -> ExposureRules {
        var buf = [CChar](repeating: 0, count: 256)
        var names: Set<String> = []
        if gethostname(&buf, buf.count - 1) == 0 {
            let name = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !name.isEmpty { names.insert(name); names.insert(name + ".local") }
        }
        return ExposureRules(machineNames: names)
    }

    /// The host part of an authority ("127.0.0.1:8080" → "127.0.0.1", "[::1]:80" → "::1").
    static func hostPart(_ authority: String) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        if let colon = authority.lastIndex(of: ":"), authority.filter({ $0 == ":" }).count == 1 {
            return String(authority[..<colon])
        }
        return authority
    }

    /// True when `authority` (the `Host` header) names this rack.
    func acceptsHost(_ authority: String?) -> Bool {
        guard let authority, !authority.isEmpty, authority.utf8.count <= 255,
              authority.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789.-:[]".unicodeScalars.contains($0)) })
        else { return false }
        let host = Self.hostPart(authority).lowercased()
        if host == "localhost" || machineNames.contains(host) { return true }
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// True when a WebSocket upgrade may go ahead: no `Origin` (not a browser), or the page's
    /// own origin.
    func acceptsOrigin(_ origin: String?, authority: String?) -> Bool {
        guard let origin else { return true }
        guard let authority else { return false }
        return origin.lowercased() == "http://" + authority.lowercased()
    }
}
