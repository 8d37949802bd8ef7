import XCTest
@testable import RackDSP

/// "Did you mean": the nearest name within 2 edits, ignoring case.
final class NameMatchTests: XCTestCase {
    let names = ["cutoff", "resonance", "mix", "gain", "decay", "damping"]

    func testTheNearestNameWithinTwoEditsIsSuggested() {
        XCTAssertEqual(NameMatch.suggestion(for: "cutof", in: names), "cutoff", "one letter missing")
        XCTAssertEqual(NameMatch.suggestion(for: "dampnig", in: names), "damping", "two letters swapped: one edit")
        XCTAssertEqual(NameMatch.suggestion(for: "GAIN", in: names), "gain", "case is ignored")
        XCTAssertEqual(NameMatch.suggestion(for: "mux", in: names), "mix")
        XCTAssertEqual(NameMatch.suggestion(for: "resnanc", in: names), "resonance", "two edits")
        XCTAssertNil(NameMatch.suggestion(for: "rsnanc", in: names), "three edits")
        XCTAssertNil(NameMatch.suggestion(for: "volume", in: names))
        XCTAssertNil(NameMatch.suggestion(for: "", in: names))
        XCTAssertNil(NameMatch.suggestion(for: "cutoff", in: names), "a name that exists is not suggested to itself")
        XCTAssertEqual(NameMatch.suggestion(for: "decoy", in: names), "decay", "the nearest, not the first")
        XCTAssertEqual(NameMatch.didYouMean("cutof", in: names), " (did you mean cutoff?)")
        XCTAssertEqual(NameMatch.didYouMean("volume", in: names), "")
    }

    func testDistanceCountsInsertionsDeletionsReplacementsAndSwaps() {
        func d(_ a: String, _ b: String) -> Int { NameMatch.distance(Array(a), Array(b), limit: 10) }
        XCTAssertEqual(d("kitten", "sitting"), 3)
        XCTAssertEqual(d("ab", "ba"), 1)
        XCTAssertEqual(d("", "abc"), 3)
        XCTAssertEqual(d("abc", ""), 3)
        XCTAssertEqual(d("same", "same"), 0)
        XCTAssertEqual(NameMatch.distance(Array("a"), Array("abcdefgh"), limit: 3), 3, "capped at the limit")
    }
}
