// Small system helpers shared by the reader and the writer: errno and libsndfile messages, stat().
//
// Not realtime code: it allocates and uses Foundation.

import CSndfile
import Foundation
import RackPathText

import Glibc   // Linux only, like the rest of rack (JACK on Linux)

enum Sys {
    /// `strerror(code)`, lower-cased first letter, e.g. "permission denied".
    static func message(_ code: Int32) -> String {
        guard let c = strerror(code) else { return "error \(code)" }
        return tidy(String(cString: c))
    }

    /// A library message made to fit after "…: ": first letter lower-cased (unless the word is
    /// an acronym), trailing period and whitespace removed, kept to one line.
    static func tidy(_ s: String) -> String {
        var t = s.trimmingCharacters(in: .whitespacesAndNewlines)
        if let nl = t.firstIndex(where: { $0 == "\n" || $0 == "\r" }) { t = String(t[..<nl]) }
        // libsndfile wraps errno text as "System error : File too large."
        for prefix in ["System error : ", "System error: "] where t.hasPrefix(prefix) {
            t = String(t.dropFirst(prefix.count))
        }
        while t.hasSuffix(".") { t.removeLast() }
        if let first = t.first, first.isUppercase {
            let second = t.dropFirst().first
            if second == nil || !(second!.isUppercase) { t = first.lowercased() + t.dropFirst() }
        }
        return t.isEmpty ? "unknown error" : t
    }

    /// The current libsndfile error text for `handle` (`nil` = the last failed open).
    static func sndfileMessage(_ handle: OpaquePointer?) -> String {
        guard let c = sf_strerror(handle) else { return "unknown libsndfile error" }
        return tidy(String(cString: c))
    }

    /// `stat()` of `path` (following symlinks), or the errno.
    static func statPath(_ path: String) -> Result<Glibc.stat, Errno> {
        var st = Glibc.stat()
        if PathText.withCPath(path, { stat($0, &st) }) == 0 { return .success(st) }
        return .failure(Errno(errno))
    }

    struct Errno: Error { let code: Int32; init(_ c: Int32) { code = c } }

    static func isRegular(_ st: Glibc.stat) -> Bool { (st.st_mode & S_IFMT) == S_IFREG }
    static func isDirectory(_ st: Glibc.stat) -> Bool { (st.st_mode & S_IFMT) == S_IFDIR }
}
