import Foundation
import XCTest
import RackDSP
@testable import RackEngine
@testable import RackFiles

/// User preset numbers persist (saves and deletes of others do not move
/// them; an old directory is numbered once in name order); names match ignoring case, exact
/// first; names of any script are stored in NFC as safe file names.
final class PresetNumberTests: XCTestCase {
    private func store(_ user: String) -> PresetStore { PresetStore(factoryDirectory: factoryPresetDirectory, userDirectory: user) }

    func testNumbersSurviveSavesAndDeletesOfOthersAndRestarts() throws {
        let user = temporaryDirectory()
        let presets = store(user)
        for name in ["Zed", "Mid", "Beta"] { try presets.save(name: name, state: RackState()) }
        XCTAssertEqual(["Zed", "Mid", "Beta"].map { presets.index(of: presets.preset(named: $0)!) }, [-1, -2, -3])
        // Saving "Alpha" (first in name order) moves nobody.
        try presets.save(name: "Alpha", state: RackState())
        XCTAssertEqual(presets.preset(index: -1)?.name, "Zed")
        XCTAssertEqual(presets.preset(index: -4)?.name, "Alpha")
        // Deleting one keeps the others' numbers; the freed one is taken by the next new save.
        try presets.delete(name: "Mid")
        XCTAssertNil(presets.preset(index: -2))
        XCTAssertEqual(presets.preset(index: -3)?.name, "Beta")
        let reread = store(user)
        XCTAssertEqual(reread.user.map(\.name), ["Zed", "Beta", "Alpha"], "listed in number order")
        XCTAssertEqual([-1, -3, -4].map { reread.preset(index: $0)?.name }, ["Zed", "Beta", "Alpha"])
        try reread.save(name: "Gamma", state: RackState())
        XCTAssertEqual(store(user).preset(index: -2)?.name, "Gamma")
        // Overwriting keeps the number.
        try reread.save(name: "Zed", state: RackState())
        XCTAssertEqual(store(user).preset(index: -1)?.name, "Zed")
        XCTAssertEqual(reread.problems.count, 0, "\(reread.problems)")
    }

    /// `.numbers.json` as a directory: a new preset cannot be numbered, so its save is refused
    /// whole (it used to answer an error with the preset saved all the same); so is a delete.
    func testASaveOrDeleteTheIndexCannotRecordIsRefusedWhole() throws {
        let user = temporaryDirectory()
        let presets = store(user)
        try presets.save(name: "Kept", state: RackState())
        try FileManager.default.removeItem(atPath: user + "/" + PresetNumbers.fileName)
        try FileManager.default.createDirectory(atPath: user + "/" + PresetNumbers.fileName + "/x", withIntermediateDirectories: true)
        XCTAssertThrowsError(try presets.save(name: "New", state: RackState()))
        XCTAssertFalse(FileManager.default.fileExists(atPath: user + "/New.json"), "nothing written")
        XCTAssertNil(presets.preset(named: "New"))
        XCTAssertEqual(presets.user.map(\.name), ["Kept"])
        XCTAssertThrowsError(try presets.delete(name: "Kept"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: user + "/Kept.json"), "nothing deleted")
        XCTAssertEqual(presets.index(of: try XCTUnwrap(presets.preset(named: "Kept"))), -1)
        try presets.save(name: "Kept", state: RackState())   // numbered already: no index to write
    }

    func testAnOldDirectoryIsNumberedOnceInNameOrder() throws {
        let user = temporaryDirectory()
        for name in ["Night", "Alpha", "Mid"] { try store(user).save(name: name, state: RackState()) }
        // A directory of before: no index.
        try FileManager.default.removeItem(atPath: user + "/" + PresetNumbers.fileName)
        let old = store(user)
        XCTAssertEqual([-1, -2, -3].map { old.preset(index: $0)?.name }, ["Alpha", "Mid", "Night"], "today's order")
        XCTAssertTrue(FileManager.default.fileExists(atPath: user + "/" + PresetNumbers.fileName), "written once")
        try old.save(name: "Aardvark", state: RackState())
        XCTAssertEqual([-1, -2, -3, -4].map { store(user).preset(index: $0)?.name }, ["Alpha", "Mid", "Night", "Aardvark"])
    }

    func testAFileCopiedInTakesTheSmallestFreeNumberAndABadIndexIsReported() throws {
        let user = temporaryDirectory()
        let presets = store(user)
        for name in ["One", "Two", "Three"] { try presets.save(name: name, state: RackState()) }
        try presets.delete(name: "One")
        try FileManager.default.copyItem(atPath: user + "/Two.json", toPath: user + "/Copy.json")
        try String(try String(contentsOfFile: user + "/Copy.json", encoding: .utf8).replacingOccurrences(of: "\"Two\"", with: "\"Copy\""))
            .write(toFile: user + "/Copy.json", atomically: true, encoding: .utf8)
        let reread = store(user)
        XCTAssertEqual([-1, -2, -3].map { reread.preset(index: $0)?.name }, ["Copy", "Two", "Three"])
        try "{not json".write(toFile: user + "/" + PresetNumbers.fileName, atomically: true, encoding: .utf8)
        let broken = store(user)
        XCTAssertTrue(broken.problems.contains { $0.message.contains(PresetNumbers.fileName) }, "\(broken.problems)")
        XCTAssertEqual(broken.user.count, 3)
    }

    func testNamesMatchIgnoringCaseExactFirst() throws {
        let user = temporaryDirectory()
        let presets = store(user)
        XCTAssertEqual(presets.preset(named: "warm")?.name, "Warm")
        XCTAssertEqual(presets.preset(named: "BIG HALL")?.name, "Big Hall")
        XCTAssertNil(presets.preset(named: "Warmer"))
        XCTAssertThrowsError(try presets.save(name: "WARM", state: RackState()), "a factory name in other case is taken")
        try presets.save(name: "Café Hall", state: RackState())
        XCTAssertEqual(presets.preset(named: "CAFÉ HALL")?.name, "Café Hall")
        XCTAssertThrowsError(try presets.save(name: "café hall", state: RackState())) { error in
            XCTAssertTrue((error as! RackError).message.contains("differs only in case"), "\(error)")
        }
        XCTAssertEqual(presets.preset(namedOrNumbered: "-1")?.name, "Café Hall")
        try presets.delete(name: "café HALL")
        XCTAssertTrue(presets.user.isEmpty)
    }

    func testNamesOfAnyScriptAreOneNFCFile() throws {
        let user = temporaryDirectory()
        let decomposed = "Cafe\u{301} Hall"
        try store(user).save(name: decomposed, state: RackState())
        let files = try FileManager.default.contentsOfDirectory(atPath: user).filter { !$0.hasPrefix(".") }
        XCTAssertEqual(files.map { Array($0.utf8) }, [Array("Caf\u{E9} Hall.json".utf8)], "stored composed (NFC)")
        let reread = store(user)
        XCTAssertEqual(reread.problems.count, 0, "\(reread.problems)")
        XCTAssertEqual(reread.preset(named: "Café Hall")?.name, "Café Hall")
        try reread.save(name: "大ホール", state: RackState())
        XCTAssertEqual(store(user).preset(named: "大ホール")?.name, "大ホール")
    }

    func testTheUnknownPresetErrorListsThePresetsBounded() throws {
        let user = temporaryDirectory()
        let presets = store(user)
        let few = presets.unknownNameReason("Nope")
        XCTAssertTrue(few.hasPrefix("unknown preset 'Nope' (one of "), few)
        for name in presets.factory.map(\.name) { XCTAssertTrue(few.contains("'\(name)'"), few) }
        for i in 0..<40 { try presets.save(name: "User \(i)", state: RackState()) }
        let many = presets.unknownNameReason(String(repeating: "x", count: 500))
        XCTAssertTrue(many.contains("and \(presets.all.count - PresetStore.namesInUnknownReason) more"), many)
        XCTAssertLessThan(many.count, 600, many)
    }
}
