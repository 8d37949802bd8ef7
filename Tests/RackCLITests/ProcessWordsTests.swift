import Foundation
import XCTest
import RackTestSupport

/// The project speaks of itself only: no word in the documentation, the code, the tests or the
/// scripts needs the history of its making to be understood (a numbered issue or round, the
/// specification called by another name). Each hit is named with its file and line.
final class ProcessWordsTests: XCTestCase {
    /// Words that point outside the project, case-insensitive.
    static let patterns = [#"\bissues?\s*#?\d+"#, #"\bin the issue\b"#, #"\bissue tracker\b"#,
                           #"\bthis\s+round\b"#, #"\bround\s+\d+"#, #"\bstop\s+\d+\b"#, #"\bcontract(s|'s)?\b"#]

    /// The folders and files searched, from the repository's root.
    static let searched = ["README.md", "CHANGELOG.md", "docs", "Sources", "Tests", "scripts", "Examples", "share", "Presets"]
    static let skipped: Set<String> = [".build", ".venv", "__pycache__"]
    static let textExtensions: Set<String> = ["", "md", "swift", "py", "c", "h", "sh", "txt", "js", "css", "html", "ttl", "json", "bash", "zsh", "fish", "1", "service", "example", "toml", "cfg"]

    /// Every text file under `searched`, relative to the root, this file excepted.
    func files() -> [String] {
        let fm = FileManager.default
        let me = URL(fileURLWithPath: #filePath).standardizedFileURL.path
        var result: [String] = []
        for top in Self.searched {
            let url = Documentation.root.appendingPathComponent(top)
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            guard isDirectory.boolValue else { result.append(top); continue }
            guard let walk = fm.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            for case let file as URL in walk {
                if Self.skipped.contains(file.lastPathComponent) { walk.skipDescendants(); continue }
                guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                      Self.textExtensions.contains(file.pathExtension),
                      file.standardizedFileURL.path != me else { continue }
                result.append(String(file.standardizedFileURL.path.dropFirst(Documentation.root.standardizedFileURL.path.count + 1)))
            }
        }
        return result
    }

    func testNoFileUsesAProcessWord() throws {
        let regexes = try Self.patterns.map { try NSRegularExpression(pattern: $0, options: .caseInsensitive) }
        let files = files()
        XCTAssertTrue(files.contains("README.md") && files.contains { $0.hasPrefix("Sources/") }, "the search finds the project")
        var hits: [String] = []
        for file in files {
            guard let text = try? String(contentsOf: Documentation.root.appendingPathComponent(file), encoding: .utf8) else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                let range = NSRange(line.startIndex..., in: line)
                if regexes.contains(where: { $0.firstMatch(in: line, range: range) != nil }) {
                    hits.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces).prefix(120))")
                }
            }
        }
        XCTAssertEqual(hits, [], "process words:\n" + hits.joined(separator: "\n"))
    }

    /// The patterns find what they are for, and leave ordinary words alone.
    func testThePatternsFindProcessWordsOnly() throws {
        let regexes = try Self.patterns.map { try NSRegularExpression(pattern: $0, options: .caseInsensitive) }
        func hit(_ line: String) -> Bool {
            regexes.contains { $0.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil }
        }
        // The samples are put together from their words, so that this file does not hold the
        // phrases it looks for (every other file is searched by something that reads it whole).
        let samples = [["fixed in", "issue", "12"], ["Issue", "#3"], ["as this", "round", "asks"], ["Round", "4"],
                       ["stop", "2 of the plan"], ["within the", "contract's", "1 s"]].map { $0.joined(separator: " ") }
        for line in samples {
            XCTAssertTrue(hit(line), line)
        }
        for line in ["the OSC round trip", "rounds to samples", "SIGTERM stops it", "scripts/jack-server stop PID", "a tissue"] {
            XCTAssertFalse(hit(line), line)
        }
    }
}
