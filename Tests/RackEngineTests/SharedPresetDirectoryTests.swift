import Foundation
import XCTest
import RackDSP
@testable import RackEngine
@testable import RackFiles
import RackTestSupport

/// Two stores on one user directory, as two racks sharing a config directory: saves and
/// deletes merge with what is on disk under the directory's lock, names stay unique ignoring
/// case, and each store sees the other's saves and deletes without being restarted.
final class SharedPresetDirectoryTests: XCTestCase {
    private func store(_ user: String) -> PresetStore { PresetStore(factoryDirectory: factoryPresetDirectory, userDirectory: user) }

    /// A saves Zed (−1), B saves Web (−2), A deletes Zed: Web keeps −2 in the index, in A, and
    /// after a restart (A's delete used to write its stale index, `{ }`, and Web became −1).
    func testADeleteKeepsTheOtherStoresNumbers() throws {
        let user = temporaryDirectory()
        let a = store(user), b = store(user)
        XCTAssertEqual(a.index(of: try a.save(name: "Zed", state: RackState())), -1)
        XCTAssertEqual(b.index(of: try b.save(name: "Web", state: RackState())), -2)
        try a.delete(name: "Zed")
        XCTAssertEqual(a.preset(index: -2)?.name, "Web", "A recalls B's preset by its number")
        XCTAssertNil(a.preset(index: -1))
        XCTAssertEqual(store(user).preset(index: -2)?.name, "Web", "after a restart")
        XCTAssertEqual(b.preset(index: -2)?.name, "Web")
        XCTAssertNil(b.preset(named: "Zed"), "B sees A's delete")
        // The next new save, from either store, takes the number Zed freed.
        XCTAssertEqual(b.index(of: try b.save(name: "Ash", state: RackState())), -1)
        XCTAssertEqual(a.preset(index: -1)?.name, "Ash")
        XCTAssertEqual(a.problems.count + b.problems.count, 0, "\(a.problems) \(b.problems)")
    }

    /// A store finds a preset another store saved, by name and by number, and lists it, without
    /// being made again.
    func testAStoreSeesTheOthersSaveWithoutARestart() throws {
        let user = temporaryDirectory()
        try setModified(user, secondsAgo: 3_600)   // settled: A trusts its stamp
        let a = store(user), b = store(user)
        XCTAssertNil(a.preset(named: "Web"))
        try b.save(name: "Web", state: RackState())
        XCTAssertEqual(a.preset(named: "web")?.name, "Web")
        XCTAssertEqual(a.preset(index: -1)?.name, "Web")
        XCTAssertEqual(a.user.map(\.name), ["Web"])
        try b.delete(name: "Web")
        XCTAssertNil(a.preset(named: "Web"), "and B's delete")
    }

    /// A lookup in a directory whose stamp has not moved reads nothing: a file put there with
    /// the directory's time set back as it was is not seen until the directory changes.
    func testAnUnchangedDirectoryIsNotReadAgain() throws {
        let user = temporaryDirectory()
        let a = store(user), b = store(user)
        try b.save(name: "Web", state: RackState())
        try setModified(user, secondsAgo: 3_600)
        XCTAssertNotNil(a.preset(named: "Web"))
        let stamp = try FileManager.default.attributesOfItem(atPath: user)[.modificationDate] as! Date
        let text = try String(contentsOfFile: user + "/Web.json", encoding: .utf8)
        try text.replacingOccurrences(of: "\"Web\"", with: "\"Hand\"").write(toFile: user + "/Hand.json", atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: stamp], ofItemAtPath: user)
        XCTAssertNil(a.preset(named: "Hand"), "stamp unchanged: not read again")
        try b.save(name: "Ash", state: RackState())
        XCTAssertNotNil(a.preset(named: "Hand"), "changed: read again")
        XCTAssertNotNil(a.preset(named: "Ash"))
    }

    /// The README states the window within which a changed directory is read at every lookup:
    /// the constant's figure.
    func testTheReadmeStatesTheSettleWindow() throws {
        let readme = try Documentation.text()
        let milliseconds = PresetDirectory.settleNanoseconds / 1_000_000
        XCTAssertTrue(readme.contains("within \(milliseconds) ms of a change, when a second change could leave the"),
                      "README: \(milliseconds) ms")
    }

    private func setModified(_ path: String, secondsAgo: Double) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -secondsAgo)], ofItemAtPath: path)
    }

    /// The rule for names that differ only in case holds across stores: B's save of "night" when
    /// A saved "Night" is refused, as it is within one store, and writes nothing.
    func testANameDifferingOnlyInCaseFromTheOtherStoresIsRefused() throws {
        let user = temporaryDirectory()
        let a = store(user), b = store(user)
        try a.save(name: "Night", state: RackState())
        XCTAssertThrowsError(try b.save(name: "night", state: RackState())) { error in
            XCTAssertTrue((error as! RackError).message.contains("differs only in case"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: user + "/night.json"))
        XCTAssertEqual(store(user).user.map(\.name), ["Night"])
    }

    /// Two files whose names differ only in case (written by hand, or by racks before the lock)
    /// are not both loaded silently: the first in name order loads, the other is reported.
    func testTwoFilesDifferingOnlyInCaseAreReported() throws {
        let user = temporaryDirectory()
        let a = store(user)
        try a.save(name: "Night", state: RackState())
        let text = try String(contentsOfFile: user + "/Night.json", encoding: .utf8)
        try text.replacingOccurrences(of: "\"Night\"", with: "\"night\"").write(toFile: user + "/night.json", atomically: true, encoding: .utf8)
        let reread = store(user)
        XCTAssertEqual(reread.user.map(\.name), ["Night"])
        XCTAssertEqual(reread.problems.count, 1, "\(reread.problems)")
        XCTAssertTrue(reread.problems.first?.message.contains("night.json") ?? false, "\(reread.problems)")
    }
}
