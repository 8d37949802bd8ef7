import Foundation

/// The documentation the tests read their figures from: README.md, then every `docs/*.md` in
/// the order of their names, so a figure may move between them without its test changing.
public enum Documentation {
    /// The repository's root.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The documentation's files, relative to the root, in the order `text()` joins them.
    public static func files() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// Every file of the documentation, one after another.
    public static func text() throws -> String {
        try files().map { try text(of: $0) }.joined(separator: "\n")
    }

    /// One file's text; `name` is relative to the root (`README.md`, `docs/parameters.md`).
    public static func text(of name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
    }
}
