import Foundation
import XCTest
import RackEngine
import RackTestSupport

/// The documented parameter table (docs/parameters.md) says it comes from the parameter table in the code; each row is
/// read here and held to `Parameters.all`: id, unit, range, default, taper, default (and
/// longest) ramp, and how a ramp moves (multiplicatively: an exponential ramp; linearly: linear).
final class ReadmeParameterTableTests: XCTestCase {
    /// The documented table's rows, cells trimmed, in order.
    func readmeRows() throws -> [[String]] {
        let readme = try Documentation.text(of: "docs/parameters.md")
        let header = "| id | unit | range | default | taper | default ramp | moves |"
        let start = try XCTUnwrap(readme.range(of: header), "the parameter table of docs/parameters.md")
        var rows: [[String]] = []
        for line in readme[start.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("| `") else { break }
            rows.append(line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return rows
    }

    /// A README number: Unicode minus and a leading plus allowed.
    func number(_ text: Substring) throws -> Double {
        try XCTUnwrap(Double(text.replacingOccurrences(of: "−", with: "-").replacingOccurrences(of: "+", with: "")), String(text))
    }

    /// The first number in `text` (`the room's (10 = off)` → 10).
    func firstNumber(_ text: String) throws -> Double {
        let digits = try XCTUnwrap(text.range(of: #"[−+-]?[0-9]+(\.[0-9]+)?"#, options: .regularExpression), text)
        return try number(text[digits])
    }

    func testEveryRowIsTheParameterTables() throws {
        let rows = try readmeRows()
        XCTAssertEqual(rows.map { $0[0] }, Parameters.all.map { "`\($0.name)`" }, "the rows, in table order")
        for (row, spec) in zip(rows, Parameters.all) {
            let name = spec.name
            XCTAssertEqual(row[1], spec.unit, name)
            switch spec.taper {
            case .choice:
                XCTAssertEqual(row[2], "\(spec.choices.count) rooms", name)
                XCTAssertEqual(row[3], "`\(spec.choices[Int(spec.defaultValue)])`", name)
            case .toggle:
                XCTAssertEqual(row[2], "0, 1", name)
                XCTAssertEqual(try firstNumber(row[3]), spec.defaultValue, name)
            case .linear, .logarithmic:
                let bounds = row[2].components(separatedBy: " … ")
                XCTAssertEqual(bounds.count, 2, name)
                XCTAssertEqual(try number(Substring(bounds[0])), spec.minimum, name)
                XCTAssertEqual(try number(Substring(bounds[1])), spec.maximum, name)
                // The room's defaults are given rounded (damping's 3529.4… as 3529).
                XCTAssertEqual(try firstNumber(row[3]), spec.defaultValue, accuracy: 0.5, name)
            }
            XCTAssertEqual(row[3].hasPrefix("the room's ("), spec.group == .reverb && ![.mix, .room].contains(spec.id),
                           "\(name): the default is the room's exactly for the shaping controls")
            XCTAssertEqual(row[4], spec.taper.rawValue, name)
            if row[5].hasPrefix("none") {
                XCTAssertEqual(spec.maximumRampSeconds, 0, "\(name): no ramp")
            } else {
                XCTAssertEqual(try firstNumber(row[5]) / 1000, spec.defaultRampSeconds, accuracy: 1e-12, name)
                if let cap = row[5].range(of: #"at most [0-9]+ ms"#, options: .regularExpression) {
                    XCTAssertEqual(try firstNumber(String(row[5][cap])) / 1000, spec.maximumRampSeconds, accuracy: 1e-12, name)
                } else {
                    XCTAssertEqual(spec.maximumRampSeconds, 3600, "\(name): a ramp of up to an hour")
                }
            }
            if row[6].hasPrefix("multiplicatively") { XCTAssertEqual(spec.rampShape, .exponential, name) }
            if row[6].hasPrefix("linearly") { XCTAssertEqual(spec.rampShape, .linear, name) }
        }
    }
}
