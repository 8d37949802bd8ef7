import Foundation
import XCTest
import RackTestSupport
import RackDSP
@testable import RackEngine
@testable import RackFiles

/// The repository's `Presets/` folder.
let factoryPresetDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Presets").path

func temporaryDirectory() -> String { try! makeTemporaryDirectory("rack-test") }

final class PresetTests: XCTestCase {
    func testEveryFactoryPresetIsValid() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: factoryPresetDirectory).filter { $0.hasSuffix(".json") }
        XCTAssertGreaterThanOrEqual(files.count, 6)
        for file in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: factoryPresetDirectory + "/" + file))
            XCTAssertNoThrow(try Preset.parse(data, isFactory: true, path: file), file)
        }
        let store = PresetStore(factoryDirectory: factoryPresetDirectory, userDirectory: temporaryDirectory())
        XCTAssertEqual(store.problems.count, 0, "\(store.problems)")
        XCTAssertEqual(store.factory.count, files.count)
        // The three documented presets, with the AUv3 sample's values.
        for (name, cutoff, resonance) in [("Prominent", 2500.0, 5.0), ("Bright", 14_000, 12), ("Warm", 384, -3)] {
            let p = try XCTUnwrap(store.preset(named: name))
            XCTAssertEqual(p.state[.cutoff], cutoff)
            XCTAssertEqual(p.state[.resonance], resonance)
        }
        // Several rooms are used.
        XCTAssertGreaterThanOrEqual(Set(store.factory.map(\.state.room)).count, 5)
    }

    func testBadPresetFilesAreReportedWithFileAndReason() {
        let cases: [(String, String)] = [
            ("", "not valid JSON"),
            ("{\"name\": \"A\", \"cutoff\": 1000", "not valid JSON"),
            ("[1, 2]", "expected a JSON object"),
            ("{\"name\": \"A\", \"cutoff\": \"loud\", \"resonance\": 0, \"mix\": 50, \"gain\": 0, \"room\": \"plate\"}", "'cutoff' must be a number"),
            ("{\"name\": \"A\", \"cutoff\": true, \"resonance\": 0, \"mix\": 50, \"gain\": 0, \"room\": \"plate\"}", "'cutoff' must be a number"),
            ("{\"name\": \"A\", \"cutoff\": 1000, \"resonance\": 0, \"mix\": 50, \"gain\": 0, \"room\": \"plate\", \"volume\": 3}", "unknown field 'volume'"),
            ("{\"name\": \"A\", \"cutoff\": 1000, \"resonance\": 0, \"mix\": 50, \"gain\": 0, \"room\": \"garage\"}", "unknown room 'garage'"),
            ("{\"name\": \"A\", \"cutoff\": 90000, \"resonance\": 0, \"mix\": 50, \"gain\": 0, \"room\": \"plate\"}", "out of range"),
            ("{\"name\": \"../x\", \"cutoff\": 1000, \"resonance\": 0, \"mix\": 50, \"gain\": 0, \"room\": \"plate\"}", "letters, digits"),
        ]
        for (json, reason) in cases {
            XCTAssertThrowsError(try Preset.parse(Data(json.utf8), isFactory: false, path: "/p/x.json")) { error in
                let message = (error as! RackError).message
                XCTAssertTrue(message.contains("/p/x.json") && message.contains(reason), "\(json) → \(message)")
                XCTAssertEqual((error as! RackError).status, .dataError)
            }
        }
    }

    func testBadFilesAreSkippedAndTheRestLoad() throws {
        let user = temporaryDirectory()
        try "{broken".write(toFile: user + "/Broken.json", atomically: true, encoding: .utf8)
        let store = PresetStore(factoryDirectory: factoryPresetDirectory, userDirectory: user)
        try store.save(name: "Mine", state: RackState())
        store.reload()
        XCTAssertNotNil(store.preset(named: "Mine"))
        XCTAssertEqual(store.problems.count, 1)
        XCTAssertTrue(store.problems[0].message.contains("Broken.json"))
    }

    func testSaveRecallDeleteAndNumbering() throws {
        let user = temporaryDirectory()
        let store = PresetStore(factoryDirectory: factoryPresetDirectory, userDirectory: user)
        var s = RackState()
        s[.cutoff] = 1234.5; s[.mix] = 12; s.room = .plate
        try store.save(name: "Night 2", state: s)
        try store.save(name: "A_first", state: RackState())
        let reread = PresetStore(factoryDirectory: factoryPresetDirectory, userDirectory: user)
        // Stored rounded to each parameter's precision (1234.5 Hz to 4 digits: 1235; the
        // default damping 3529.41… Hz: 3529), the same in memory as read back after a restart.
        XCTAssertEqual(s.rounded[.cutoff], 1235)
        XCTAssertEqual(s.rounded[.damping], 3529)
        XCTAssertEqual(reread.preset(named: "Night 2")?.state, s.rounded)
        XCTAssertEqual(store.preset(named: "Night 2")?.state, s.rounded)
        // Numbers in save order (they are kept, not re-sorted by name).
        XCTAssertEqual(reread.preset(index: -1)?.name, "Night 2")
        XCTAssertEqual(reread.preset(index: -2)?.name, "A_first")
        XCTAssertEqual(reread.preset(index: 0)?.isFactory, true)
        XCTAssertTrue(FileManager.default.fileExists(atPath: user + "/Night 2.json"))
        try reread.delete(name: "Night 2")
        XCTAssertFalse(FileManager.default.fileExists(atPath: user + "/Night 2.json"))
        XCTAssertThrowsError(try reread.save(name: "Warm", state: s), "factory names are taken")
        XCTAssertThrowsError(try reread.delete(name: "Warm"))
        // No temp files are left behind.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: user).filter { $0.contains("tmp") }, [])
    }

    /// A preset file with a 10 MB name was read whole and echoed whole into a
    /// start-up warning. A file over `maximumFileBytes` is refused unread; a bad value within
    /// the limit is quoted to at most `excerptCharacters` characters.
    func testHugePresetFilesAreRefusedUnreadAndBadValuesQuotedShort() throws {
        let user = temporaryDirectory()
        func preset(name: String, room: String = "plate") -> String {
            "{\"name\": \(JSON.quoted(name)), \"cutoff\": 1000, \"resonance\": 0, \"mix\": 50, \"gain\": 0, \"room\": \(JSON.quoted(room))}"
        }
        let huge = String(repeating: "n", count: 10_000_000)
        try preset(name: huge).write(toFile: user + "/Huge.json", atomically: true, encoding: .utf8)
        let long = String(repeating: "x", count: 5_000)
        try preset(name: long).write(toFile: user + "/Long.json", atomically: true, encoding: .utf8)
        try preset(name: "Roomy", room: long).write(toFile: user + "/Roomy.json", atomically: true, encoding: .utf8)
        try "{\(JSON.quoted(long)): 1}".write(toFile: user + "/Key.json", atomically: true, encoding: .utf8)
        try preset(name: "Fine").write(toFile: user + "/Fine.json", atomically: true, encoding: .utf8)
        let store = PresetStore(factoryDirectory: factoryPresetDirectory, userDirectory: user)
        XCTAssertEqual(store.user.map(\.name), ["Fine"], "the good one still loads")
        let messages = Dictionary(uniqueKeysWithValues: store.problems.map { problem in
            (["Huge", "Long", "Roomy", "Key"].first { problem.message.contains("/\($0).json") } ?? "?", problem.message)
        })
        XCTAssertEqual(Set(messages.keys), ["Huge", "Long", "Roomy", "Key"], "\(store.problems)")
        XCTAssertTrue(messages["Huge"]!.contains("larger than the \(Preset.maximumFileBytes)"), messages["Huge"]!)
        for (file, message) in messages {
            XCTAssertLessThan(message.count, user.count + 300, "\(file): \(message.prefix(400))")
        }
        XCTAssertTrue(messages["Long"]!.contains("(5000 characters)"), messages["Long"]!)
        XCTAssertTrue(messages["Roomy"]!.contains("(5000 characters)"), messages["Roomy"]!)
        // A name at the limit is quoted whole.
        XCTAssertEqual(Preset.excerpt(String(repeating: "a", count: 64)), JSON.quoted(String(repeating: "a", count: 64)))
    }

    func testNamesAreNeverPaths() {
        for bad in ["", "../x", "/tmp/x", "a/b", ".hidden", " lead", "-x", String(repeating: "a", count: 65), "a\u{0}b", "\u{301}e", "a.b", "a\u{200B}b", "a\tb"] {
            XCTAssertNotNil(PresetStore.problem(withName: bad), bad)
        }
        for good in ["a", "Warm 2", "x-y_z", "9", String(repeating: "a", count: 64), "é", "Café Hall", "Зал 2", "大ホール", "हॉल"] {
            XCTAssertNil(PresetStore.problem(withName: good), good)
        }
    }

    func testTempFilesOfACrashedSaveAreCleanedUpAtStart() throws {
        let user = temporaryDirectory()
        let temp = user + "/.Mine.json.rack-tmp-abc123"
        try "{\"name\": \"Mi".write(toFile: temp, atomically: false, encoding: .utf8)
        _ = PresetStore(factoryDirectory: factoryPresetDirectory, userDirectory: user)
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp))
    }

    func testAPresetFileWrittenBeforeTheShapingControlsLoadsWithItsRoomsValues() throws {
        let dir = try makeTemporaryDirectory("rack-old-preset")
        let path = dir + "/Old.json"
        try "{\"name\": \"Old\", \"cutoff\": 1000, \"resonance\": 0, \"mix\": 50, \"gain\": 0, \"room\": \"cathedral\"}"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let store = PresetStore(factoryDirectory: nil, userDirectory: dir)
        let old = try XCTUnwrap(store.preset(named: "Old"), "\(store.problems)")
        XCTAssertEqual(old.state.reverbShape, Room.cathedral.shape, "missing fields take the room's values")
        XCTAssertEqual(old.state[.bypass], 0)
        XCTAssertTrue(Parameters.all.allSatisfy { old.json.contains("\"\($0.name)\"") }, "saved again, it stores every parameter")
    }
}
