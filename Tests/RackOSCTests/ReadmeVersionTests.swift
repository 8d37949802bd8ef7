import Foundation
import XCTest
import RackEngine
@testable import RackOSC
import RackTestSupport

/// The README tells users which OSC namespace version they get; `/rack/version` answers it.
/// The two must agree.
final class ReadmeVersionTests: XCTestCase {
    func testTheReadmeNamesTheNamespaceVersionTheCodeReports() throws {
        let readme = try Documentation.text()
        let marker = "Namespace version: **"
        let start = try XCTUnwrap(readme.range(of: marker), "the README's OSC reference names the namespace version")
        let rest = readme[start.upperBound...]
        let end = try XCTUnwrap(rest.range(of: "**"))
        XCTAssertEqual(String(rest[..<end.lowerBound]), RackController.namespaceVersion)
    }

    /// The README's OSC table states the answer to a save as the controller sends it.
    func testTheReadmeStatesTheAnswerToASave() throws {
        let readme = try Documentation.text()
        let row = try XCTUnwrap(readme.split(separator: "\n").first { $0.hasPrefix("| `/rack/preset/save`") })
        XCTAssertTrue(row.contains("`\(OSCReplyAddress.presetSaved) s:name i:number`"), String(row))
        XCTAssertTrue(readme.contains("1.6.0 added `\(OSCReplyAddress.presetSaved)`"),
                      "the namespace version note names the address 1.6.0 added")
        XCTAssertTrue(readme.contains("\(RackController.namespaceVersion) added `/rack/schedule/clear` and its answer `\(OSCReplyAddress.scheduleCleared)`"),
                      "the namespace version note names the addresses the current version added")
    }
}
