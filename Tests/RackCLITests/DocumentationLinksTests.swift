import Foundation
import XCTest
import RackTestSupport

/// Every relative link in README.md, docs/*.md and CHANGELOG.md points at a file that exists and, with a
/// `#fragment`, at a heading of that file (the anchor a Markdown renderer makes of it).
final class DocumentationLinksTests: XCTestCase {
    /// The anchors of a Markdown text's headings outside code blocks: lower case, punctuation
    /// dropped, spaces as hyphens; a repeated anchor gets `-1`, `-2`, … as renderers number it.
    static func anchors(_ text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var result = Set<String>()
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fenced.toggle(); continue }
            guard !fenced, let match = line.firstMatch(of: #/^#+ (.*)$/#) else { continue }
            let slug = String(match.1.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == " " })
                .replacingOccurrences(of: " ", with: "-")
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            result.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return result
    }

    /// The targets of a Markdown text's links `[text](target)` and images, outside code blocks
    /// and code spans.
    static func links(_ text: String) -> [String] {
        var fenced = false
        var result: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fenced.toggle(); continue }
            if fenced { continue }
            let prose = line.replacing(#/`[^`]*`/#, with: "")
            result += prose.matches(of: #/\]\(([^)\s]+)\)/#).map { String($0.1) }
        }
        return result
    }

    func testEveryRelativeLinkFindsItsFileAndHeading() throws {
        let files = try Documentation.files() + ["CHANGELOG.md"]
        XCTAssertGreaterThan(files.count, 1, "README.md and docs/*.md")
        var checked = 0
        for file in files {
            let base = Documentation.root.appendingPathComponent(file).deletingLastPathComponent()
            for link in Self.links(try Documentation.text(of: file)) where link.firstMatch(of: #/^[a-z]+:/#) == nil {
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let target = parts[0].isEmpty ? Documentation.root.appendingPathComponent(file)
                                              : base.appendingPathComponent(String(parts[0])).standardizedFileURL
                checked += 1
                guard FileManager.default.fileExists(atPath: target.path) else {
                    XCTFail("\(file): the link \(link) points at no file"); continue
                }
                if parts.count == 2 {
                    let text = try String(contentsOf: target, encoding: .utf8)
                    XCTAssertTrue(Self.anchors(text).contains(String(parts[1])), "\(file): the link \(link) points at no heading")
                }
            }
        }
        XCTAssertGreaterThan(checked, 0, "the documentation links to itself")
    }

    /// The anchors are the ones a renderer makes: punctuation dropped, repeats numbered.
    func testAnchorsAreTheRenderersAnchors() {
        XCTAssertEqual(Self.anchors("## As a plugin (LV2: `rack.lv2`)\n```\n# not a heading\n```\n## Rooms\n### Rooms\n"),
                       ["as-a-plugin-lv2-racklv2", "rooms", "rooms-1"])
    }
}
