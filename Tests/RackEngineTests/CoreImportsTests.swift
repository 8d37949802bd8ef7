import Foundation
import XCTest

/// The realtime core imports no Foundation: every Swift source of the plugins' modules (LV2,
/// CLAP) and of the modules they depend on (read from Package.swift, so a new dependency is scanned too)
/// is read for a Foundation import (`Foundation`, `FoundationEssentials`,
/// `FoundationNetworking`, in any form: `@_exported`, `internal`, `import struct Foundation.X`).
/// The plugin's build is the other half: scripts/build-plugins compiles these modules as Embedded
/// Swift, which has no Foundation, and links with no symbol left undefined.
final class CoreImportsTests: XCTestCase {
    /// The package's root directory.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A line that imports a Foundation module.
    let foundationImport = try! NSRegularExpression(
        pattern: #"^\s*(@\w+\s+)*((public|package|internal|fileprivate|private)\s+)?import\s+((typealias|struct|class|enum|protocol|let|var|func)\s+)?Foundation\w*\b"#)

    /// Each target's dependencies by name, from Package.swift's `.target(name:dependencies:)`.
    func targetDependencies() throws -> [String: [String]] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let target = try NSRegularExpression(pattern: #"\.target\(name: "(\w+)"(?:, dependencies: \[([^\]]*)\])?"#)
        let quoted = try NSRegularExpression(pattern: #"^\s*"(\w+)"\s*$"#)
        var dependencies: [String: [String]] = [:]
        let text = manifest as NSString
        for match in target.matches(in: manifest, range: NSRange(location: 0, length: text.length)) {
            let name = text.substring(with: match.range(at: 1))
            let list = match.range(at: 2).location == NSNotFound ? "" : text.substring(with: match.range(at: 2))
            dependencies[name] = list.split(separator: ",").compactMap { item in
                let item = String(item)
                guard let m = quoted.firstMatch(in: item, range: NSRange(location: 0, length: (item as NSString).length)) else { return nil }
                return (item as NSString).substring(with: m.range(at: 1))
            }
        }
        return dependencies
    }

    /// The plugins' modules (LV2 and CLAP) and every module they depend on, directly or not.
    func pluginModules() throws -> Set<String> {
        let dependencies = try targetDependencies()
        var modules: Set<String> = []
        var pending = ["RackLV2Plugin", "RackCLAPPlugin"]
        while let module = pending.popLast() {
            guard modules.insert(module).inserted else { continue }
            pending += dependencies[module] ?? []
        }
        return modules
    }

    /// The Swift sources under `Sources/module`, recursively.
    func swiftSources(_ module: String) -> [URL] {
        let directory = root.appendingPathComponent("Sources").appendingPathComponent(module)
        let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
    }

    func testThePluginsModulesImportNoFoundation() throws {
        let modules = try pluginModules()
        // The core the README names, found through the manifest (the scan below cannot pass
        // by finding nothing).
        for core in ["RackLV2Plugin", "RackCLAPPlugin", "RackLV2", "RackPlugin", "RackEngine", "RackDSP"] {
            XCTAssertTrue(modules.contains(core), "\(core) is not among the plugin's modules \(modules.sorted())")
            XCTAssertFalse(swiftSources(core).isEmpty, "no Swift sources found for \(core)")
        }
        XCTAssertFalse(modules.contains("RackFiles"), "the plugin depends on RackFiles (Foundation)")
        for module in modules.sorted() {
            for file in swiftSources(module) {
                let source = try String(contentsOf: file, encoding: .utf8)
                for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let line = String(line)
                    let found = foundationImport.firstMatch(in: line, range: NSRange(location: 0, length: (line as NSString).length))
                    let relative = file.path.dropFirst(root.path.count + 1)
                    XCTAssertTrue(found == nil, "\(relative):\(number + 1): \(line) (the realtime core imports no Foundation)")
                }
            }
        }
    }

    /// scripts/build-plugins compiles exactly the plugin's Swift modules (its `modules=(...)` line).
    func testThePluginBuildCompilesThePluginsModules() throws {
        let script = try String(contentsOf: root.appendingPathComponent("scripts/build-plugins"), encoding: .utf8)
        let line = try XCTUnwrap(script.split(separator: "\n").first { $0.hasPrefix("modules=(") }, "build-plugins's modules line")
        let listed = line.dropFirst("modules=(".count).dropLast().split(separator: " ").map(String.init)
        let swiftModules = try pluginModules().filter { !swiftSources($0).isEmpty }
        XCTAssertEqual(Set(listed), swiftModules)
        XCTAssertEqual(listed.count, Set(listed).count, "a module listed twice: \(listed)")
    }

    /// The pattern catches every form of the import (and nothing else): the scan can fail.
    func testThePatternCatchesEveryForm() {
        let imports = ["import Foundation", "@_exported import Foundation", "internal import FoundationEssentials",
                       "import FoundationNetworking", "  @preconcurrency import Foundation", "import struct Foundation.Data"]
        let others = ["import RackDSP", "// import Foundation", "import Foundry"]
        for line in imports {
            XCTAssertNotNil(foundationImport.firstMatch(in: line, range: NSRange(location: 0, length: (line as NSString).length)), line)
        }
        for line in others {
            XCTAssertNil(foundationImport.firstMatch(in: line, range: NSRange(location: 0, length: (line as NSString).length)), line)
        }
    }
}
