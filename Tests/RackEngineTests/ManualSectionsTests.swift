import Foundation
import XCTest
@testable import RackEngine
@testable import RackFiles

/// The man page's PARAMETERS, OSC and AUTOMATION FILES sections are the tables'
/// (`scripts/gen-docs` writes them); a committed man page that disagrees with the tables fails.
final class ManualSectionsTests: XCTestCase {
    let manPage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("share/man/man1/rack.1")

    func testTheManPageHoldsTheSectionsOfTheTables() throws {
        let page = try String(contentsOf: manPage, encoding: .utf8)
        XCTAssertTrue(page.contains(ManualSections.roff), "share/man/man1/rack.1 is not the tables' (run scripts/gen-docs)")
    }

    /// Every parameter and every command a user may send is in the sections, and the OSC
    /// section names nothing else.
    func testTheSectionsNameEveryRowAndNothingElse() {
        let roff = ManualSections.roff
        for spec in Parameters.all {
            XCTAssertTrue(roff.contains(".B \(ManualSections.escape(spec.name))\n\(ManualSections.escape(spec.summary))"), spec.name)
        }
        let osc = roff.components(separatedBy: ".SH OSC\n")[1].components(separatedBy: ".SH ")[0]
        let named = osc.split(separator: "\n").filter { $0.hasPrefix(".B ") }
            .map { String($0.dropFirst(3).split(separator: " ")[0]).replacingOccurrences(of: "\\-", with: "-") }
        let declared = OSCAddressSpace.commands.filter { !$0.sessionManagerOnly }.map(\.address)
        XCTAssertEqual(named, ["/rack/PARAMETER", "/rack/PARAMETER/norm"] + declared)
        for c in OSCAddressSpace.commands where c.automation != nil {
            XCTAssertTrue(roff.components(separatedBy: ".SH AUTOMATION FILES")[1].contains(ManualSections.escape(c.address)), c.address)
        }
    }

    func testRoffEscapes() {
        XCTAssertEqual(ManualSections.escape(".x -1 a\\b it's"), "\\&.x \\-1 a\\\\b it\\(aqs")
    }

    /// `man rack` at 80 columns (groff with preconv, as `man -l` renders it): no line is wider
    /// than 80 columns, and no line of the parameter lists (DESCRIPTION's and PARAMETERS) holds
    /// one word alone (a tag cut from its text, a value or a unit wrapped onto a line of its
    /// own). groff comes with groff-base (scripts/install-deps).
    func testTheManPageFitsEightyColumnsWithNoWordAlone() throws {
        let groff = "/usr/bin/groff"
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: groff), "groff is missing: run scripts/install-deps")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: groff)
        p.arguments = ["-k", "-man", "-Tutf8", "-rLL=80n", "-P-cbou", manPage.path]
        p.environment = ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertGreaterThan(lines.count, 100, text)
        for line in lines { XCTAssertLessThanOrEqual(line.count, 80, line) }
        func section(_ title: String) -> [String] {
            Array(lines.drop { $0 != title }.dropFirst().prefix { $0.isEmpty || $0.hasPrefix(" ") })
        }
        let lists = section("DESCRIPTION") + section("PARAMETERS")
        XCTAssertGreaterThan(lists.count, 2 * Parameters.all.count, "both lists rendered")
        for line in lists {
            let words = line.split(separator: " ")
            XCTAssertFalse(words.count == 1 && !line.hasSuffix(":"), "a word alone on a line: '\(line)'")
        }
    }
}
