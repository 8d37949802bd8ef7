import Foundation
import XCTest
import RackEngine
@testable import RackHTTP

/// The page rack serves is the files of `Sources/RackHTTP/Page/web`, embedded at build time:
/// every file is served, byte for byte, with only rack's own figures put in place of their tokens.
final class PageFilesTests: XCTestCase {
    /// The page's files in the source tree.
    static let webDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/RackHTTP/Page/web")

    func testTheServedPageIsTheFilesInTheTree() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.webDirectory.path).sorted()
        XCTAssertEqual(names, PageAssets.files.map(\.name).sorted(), "every file in web/ is served, and only those")
        for file in PageAssets.files {
            var expected = try String(contentsOf: Self.webDirectory.appendingPathComponent(file.name), encoding: .utf8)
            for s in PageAssets.substitutions { expected = expected.replacingOccurrences(of: s.token, with: s.value) }
            for path in file.paths {
                let asset = try XCTUnwrap(PageAssets.asset(at: path), path)
                XCTAssertEqual(asset.text, expected, path)
                XCTAssertEqual(asset.contentType, file.contentType, path)
            }
        }
    }

    func testEveryTokenIsReplacedAndTheKeepAliveIsRacks() throws {
        let keepAlive = String(HTTPLimits.webSocketKeepAliveSeconds * 1000)
        for file in PageAssets.files {
            let text = PageAssets.asset(at: file.paths[0])!.text
            XCTAssertNil(text.range(of: "__RACK_[A-Z_]+__", options: .regularExpression), file.name)
        }
        XCTAssertTrue(PageAssets.asset(at: "/ui/app.js")!.text.contains("const KEEPALIVE_MS = \(keepAlive);"))
        XCTAssertTrue(PageAssets.asset(at: "/ui/racks.js")!.text.contains("}, \(keepAlive));"))
    }

    /// The page takes the addresses it sends and listens to from the namespace it loads (each
    /// node's `FULL_PATH`): its scripts write none of rack's addresses but the answers the
    /// namespace does not publish (`OSCReplyAddress`).
    func testThePageTakesItsAddressesFromTheNamespace() throws {
        let literal = try NSRegularExpression(pattern: #"["'`](/rack[A-Za-z0-9_/.]*)["'`]"#)
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.webDirectory.path).filter { $0.hasSuffix(".js") }
        XCTAssertFalse(names.isEmpty)
        for name in names {
            let text = try String(contentsOf: Self.webDirectory.appendingPathComponent(name), encoding: .utf8)
            for match in literal.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let address = String(text[Range(match.range(at: 1), in: text)!])
                XCTAssertTrue(OSCReplyAddress.all.contains(address), "\(name) writes \(address)")
            }
        }
    }
}
