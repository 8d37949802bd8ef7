import Foundation
import XCTest
import RackEngine

/// Each address of the namespace is written once in the Swift sources, where it is declared
/// (`OSCCommands.swift`, `OSCAddressSpace.swift`); the handlers, the HTTP side, the driver and
/// the automation sender refer to the declaration.
final class AddressLiteralTests: XCTestCase {
    /// The files that declare addresses.
    static let declarationFiles: Set<String> = ["OSCCommands.swift", "OSCAddressSpace.swift"]

    func testEveryAddressIsWrittenOnceWhereItIsDeclared() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let declared = Set(OSCAddressSpace.commands.map(\.address) + OSCReplyAddress.all)
        let literal = try NSRegularExpression(pattern: #""(/[A-Za-z0-9_/.]*)""#)
        var written: [String: [String]] = [:]
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in literal.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let address = String(text[Range(match.range(at: 1), in: text)!])
                // "/rack" alone is also the name of rack's directories (`UserDirectories`).
                guard address.hasPrefix(OSCAddressSpace.parameterPrefix) || declared.contains(address) else { continue }
                written[address, default: []].append(file)
            }
        }
        XCTAssertFalse(written.isEmpty, "the sources were read")
        for (address, files) in written.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(files.count, 1, "\(address) is written in \(files)")
            XCTAssertTrue(files.allSatisfy { Self.declarationFiles.contains(URL(fileURLWithPath: $0).lastPathComponent) },
                          "\(address) is written outside the declarations, in \(files)")
        }
    }
}
