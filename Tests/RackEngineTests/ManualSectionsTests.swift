import Foundation
import XCTest
@testable import RackEngine

/// Issue 21 #8: the man page's PARAMETERS, OSC and AUTOMATION FILES sections are the tables'
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
}
