import Foundation
import XCTest
import RackDSP
import RackEngine
import RackFiles
@testable import RackOSC
import RackWire

/// `/rack/preset`, `/rack/preset/save`, `/rack/preset/delete`, `/rack/preset/list`.
final class PresetCommandTests: XCTestCase {
    func testPresetsOverOSC() throws {
        let rig = Rig()
        rig.send("/rack/preset", [.string("Warm"), .float(0.5)])
        XCTAssertEqual(rig.replies(), [], "a recall gets no reply")
        rig.send("/rack/dump")
        let dump = rig.replies()
        XCTAssertEqual(dump.map(\.address), Parameters.all.map(\.address) + ["/rack/preset"])
        XCTAssertEqual(dump[0].arguments, [.float(384)])
        XCTAssertEqual(dump.last?.arguments, [.string("Warm")])
        rig.send("/rack/preset/save", [.string("Night Set")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/preset/saved", [.string("Night Set"), .int(-1)])],
                       "a save that worked is answered with the name and its number")
        XCTAssertTrue(FileManager.default.fileExists(atPath: rig.userDir + "/Night Set.json"))
        for bad in ["../x", "/tmp/x", "a/b", "", String(repeating: "n", count: 65), ".hidden"] {
            rig.send("/rack/preset/save", [.string(bad)])
            let reply = rig.replies()
            XCTAssertEqual(reply.map(\.address), ["/rack/error"], bad)
            XCTAssertEqual(reply.first?.arguments.first, .string("/rack/preset/save"), bad)
            XCTAssertEqual(reply.first?.arguments.last?.string?.hasPrefix("preset name "), true, "no 'rack: ' prefix: \(reply)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: rig.userDir).filter { !$0.hasPrefix(".") }, ["Night Set.json"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: rig.userDir + "/../x.json"))
        rig.send("/rack/preset/list")
        let list = try XCTUnwrap(rig.replies().first)
        XCTAssertEqual(list.arguments, rig.controller.presets.all.map { .string($0.name) })
        XCTAssertTrue(list.arguments.contains(.string("Night Set")) && list.arguments.contains(.string("Warm")))
        rig.send("/rack/preset", [.int(-1)])   // user presets count down from −1
        rig.send("/rack/dump")
        XCTAssertEqual(rig.replies().last, OSCMessage("/rack/preset", [.string("Night Set")]))
        rig.send("/rack/preset/delete", [.string("Night Set")])
        XCTAssertEqual(rig.replies(), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: rig.userDir + "/Night Set.json"))
    }

    /// With `HOME=""` and no `XDG_CONFIG_HOME`, a save is refused with one line and
    /// nothing is written (it went to `/.config/rack/presets` at the filesystem root).
    func testASaveWithoutAHomeIsRefusedAndWritesNothing() throws {
        XCTAssertNil(PresetStore.defaultUserDirectory(environment: ["HOME": ""]))
        XCTAssertNil(PresetStore.defaultUserDirectory(environment: ["HOME": "relative", "XDG_CONFIG_HOME": "also-relative"]))
        XCTAssertEqual(PresetStore.defaultUserDirectory(environment: ["HOME": "", "XDG_CONFIG_HOME": "/cfg"]), "/cfg/rack/presets")
        XCTAssertEqual(PresetStore.defaultUserDirectory(environment: ["HOME": "/home/u"]), "/home/u/.config/rack/presets")
        let rig = Rig(environment: ["HOME": ""])
        XCTAssertNil(rig.controller.presets.userDirectory)
        rig.send("/rack/preset/save", [.string("Night Set")])
        let refusal = rig.replies()
        XCTAssertEqual(refusal.map(\.address), ["/rack/error"])
        XCTAssertEqual(refusal.first?.arguments.first, .string("/rack/preset/save"))
        XCTAssertEqual(refusal.first?.arguments.last, .string(PresetStore.noUserDirectoryReason))
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/.config/rack/presets/Night Set.json"))
        XCTAssertNil(rig.controller.presets.preset(named: "Night Set"))
        rig.send("/rack/preset/delete", [.string("Night Set")])
        XCTAssertEqual(rig.replies().map(\.address), ["/rack/error"])
        // Factory presets still recall and list.
        rig.send("/rack/preset", [.string("Warm")])
        XCTAssertEqual(rig.replies(), [])
        XCTAssertEqual(rig.controller.targets, rig.controller.presets.preset(named: "Warm")?.state)
    }

    /// 10,000 saves made 10,009 files. Beyond the quota a save of a new name gets
    /// `/rack/error` and writes nothing; overwriting and deleting still work.
    func testTheUserPresetQuotaIsEnforcedWithAnError() throws {
        XCTAssertEqual(PresetStore.defaultMaximumUserPresets, 1_000)
        let rig = Rig()
        rig.controller.presets.maximumUserPresets = 3
        for (i, name) in ["A", "B", "C"].enumerated() {
            rig.send("/rack/preset/save", [.string(name)])
            XCTAssertEqual(rig.replies(), [OSCMessage("/rack/preset/saved", [.string(name), .int(Int32(-1 - i))])], name)
            rig.now += 1   // one preset write per packet: new packets
        }
        rig.send("/rack/preset/save", [.string("D")])
        let refusal = rig.replies()
        XCTAssertEqual(refusal.map(\.address), ["/rack/error"])
        XCTAssertEqual(refusal.first?.arguments.last?.string?.hasPrefix("preset quota reached: at most 3 user presets"), true, "\(refusal)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: rig.userDir).filter { !$0.hasPrefix(".") }.sorted(), ["A.json", "B.json", "C.json"])
        rig.send("/rack/preset/save", [.string("B")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/preset/saved", [.string("B"), .int(-2)])], "overwriting is within the quota")
        rig.send("/rack/preset/delete", [.string("A")])
        rig.send("/rack/preset/save", [.string("D")])
        XCTAssertEqual(rig.replies().map(\.address), ["/rack/preset/saved"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: rig.userDir).filter { !$0.hasPrefix(".") }.sorted(), ["B.json", "C.json", "D.json"])
    }

    func testRecallByIndexAndItsRefusals() throws {
        let rig = Rig()
        let names = rig.controller.presets.all.map(\.name)
        let bright = try XCTUnwrap(names.firstIndex(of: "Bright"))
        rig.send("/rack/preset", [.int(Int32(bright))])
        XCTAssertEqual(rig.controller.targets, rig.controller.presets.preset(named: "Bright")?.state)
        XCTAssertEqual(rig.replies(), [])
        let cases: [([OSCValue], String)] = [
            ([.int(-1)], rig.controller.presets.unknownNameReason("-1")),
            ([.int(Int32(names.count))], rig.controller.presets.unknownNameReason("\(names.count)")),
            ([.string("No Such Preset")], rig.controller.presets.unknownNameReason("No Such Preset")),
            ([.float(1.5)], "expects a preset name or index"),
            ([.float(.nan)], "expects a preset name or index"),
            ([.bool(true)], "expects a preset name or index"),
            ([.string("Warm"), .float(-2)], "ramp time must not be negative"),
            ([.string("Warm"), .float(1), .float(1)], "expects a preset name or index and an optional ramp time"),
        ]
        for (args, reason) in cases {
            rig.send("/rack/preset", args)
            XCTAssertEqual(rig.replies(), [rig.error("/rack/preset", reason)], "\(args)")
        }
        XCTAssertEqual(rig.controller.targets, rig.controller.presets.preset(named: "Bright")?.state, "nothing changed")
    }

    func testDeletingWhatIsNotAUserPresetIsAnError() {
        let rig = Rig()
        rig.send("/rack/preset/delete", [.string("Never Saved")])
        let reply = rig.replies()
        XCTAssertEqual(reply.map(\.address), ["/rack/error"])
        XCTAssertEqual(reply.first?.arguments.first, .string("/rack/preset/delete"))
    }

    func testARecallIsAllOrNothing() {
        let rig = Rig(queueCapacity: 4)
        rig.send("/rack/preset", [.string("Warm")])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/preset", "busy: the render thread's queue is full")])
        XCTAssertEqual(rig.controller.targets, RackState())
        rig.settle()
        XCTAssertTrue(rig.controller.lastApplied.isEmpty, "not half-applied")
    }

    func testAPresetKeepingTheRoomStillEchoesEveryParameter() {
        // Warm's room is the default room: its recall must still come back as every parameter
        // applied, or the next change would be taken for part of the recall. The room change
        // after it brings the room's own shaping values (the room rule) that Warm does not have.
        let rig = Rig()
        rig.send("/rack/preset", [.string("Warm")])
        rig.send("/rack/room", [.string("plate")])
        rig.settle()
        let warm = rig.controller.presets.preset(named: "Warm")!.state
        let implied = RoomRule.implied(by: .plate).filter { warm[$0.0] != $0.1 }
        XCTAssertEqual(rig.controller.lastApplied.map { $0.action.parameterChange?.parameter },
                       ParameterID.allCases + [.room] + implied.map(\.0))
        XCTAssertEqual(rig.controller.lastApplied.dropLast(implied.count).last?.action.parameterChange?.value, Double(Room.plate.rawValue))
    }

    func testAScheduledRecallBecomesTheTargetWhenApplied() {
        let rig = Rig()
        rig.send(OSCPacket.bundle([OSCMessage("/rack/preset", [.string("Warm")])], timeTag: rig.timeTag(in: 0.05)))
        rig.send("/rack/dump")
        XCTAssertEqual(rig.replies().last, OSCMessage("/rack/preset", [.string("")]), "not yet")
        XCTAssertEqual(rig.controller.targets, RackState())
        rig.settle(blocks: 20)
        rig.send("/rack/dump")
        let dump = rig.replies()
        XCTAssertEqual(dump.first, OSCMessage("/rack/cutoff", [.float(384)]))
        XCTAssertEqual(dump.last, OSCMessage("/rack/preset", [.string("Warm")]))
    }

    /// Room and preset names match ignoring case over OSC (exact first).
    func testNamesMatchIgnoringCaseOverOSC() throws {
        let rig = Rig()
        rig.send("/rack/preset", [.string("warm")])
        XCTAssertEqual(rig.replies(), [])
        XCTAssertEqual(rig.controller.targets, rig.controller.presets.preset(named: "Warm")?.state)
        rig.send("/rack/room", [.string("MEDIUMHALL")])
        XCTAssertEqual(rig.replies(), [])
        XCTAssertEqual(rig.controller.targets.room, .mediumHall)
        rig.send("/rack/preset/save", [.string("Café Hall")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/preset/saved", [.string("Café Hall"), .int(-1)])], "letters of any script")
        rig.send("/rack/preset", [.string("café hall")])
        rig.send("/rack/dump")
        XCTAssertEqual(rig.replies().last, OSCMessage("/rack/preset", [.string("Café Hall")]))
    }

    /// With the quota's 1,000 presets of 64 characters the one-message list (70 KB)
    /// never arrived. It comes as pages of at most 2 KiB that together are the list, and each
    /// page can be asked for.
    func testAListBeyondOneDatagramComesAsPages() throws {
        XCTAssertEqual(PresetListPages.pageBytes, 2048, "the README's 2 KiB")
        XCTAssertEqual(PresetStore.defaultMaximumUserPresets, 1_000, "the README's quota")
        let rig = Rig()
        try FileManager.default.createDirectory(atPath: rig.userDir, withIntermediateDirectories: true)
        let template = String(decoding: try XCTUnwrap(FileManager.default.contents(atPath: rig.controller.presets.factory[0].path!)), as: UTF8.self)
        let factoryName = JSON.quoted(rig.controller.presets.factory[0].name)
        for i in 0..<PresetStore.defaultMaximumUserPresets {
            let name = String(format: "Preset %04d ", i) + String(repeating: "x", count: 52)
            try template.replacingOccurrences(of: factoryName, with: JSON.quoted(name))
                .write(toFile: rig.userDir + "/" + name + ".json", atomically: false, encoding: .utf8)
        }
        rig.controller.presets.reload()
        let names = rig.controller.presets.all.map(\.name)
        XCTAssertEqual(names.count, PresetStore.defaultMaximumUserPresets + rig.controller.presets.factory.count)
        rig.send("/rack/preset/list")
        let pages = rig.replies()
        XCTAssertGreaterThan(pages.count, 30)
        for (i, page) in pages.enumerated() {
            XCTAssertEqual(page.address, "/rack/preset/list/page")
            XCTAssertEqual(Array(page.arguments.prefix(2)), [.int(Int32(i)), .int(Int32(pages.count))])
            XCTAssertLessThanOrEqual(page.encoded().count, PresetListPages.pageBytes)
        }
        XCTAssertEqual(pages.flatMap { $0.arguments.dropFirst(2).compactMap(\.string) }, names, "together the pages are the list")
        rig.send("/rack/preset/list", [.int(3)])
        XCTAssertEqual(rig.replies(), [pages[3]])
        rig.send("/rack/preset/list", [.int(Int32(pages.count))])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/preset/list", "no page \(pages.count): pages 0…\(pages.count - 1)")])
        // A short list is still one /rack/preset/list message, and page 0 of it is the same names.
        let small = Rig()
        small.send("/rack/preset/list", [.int(0)])
        XCTAssertEqual(small.replies().first?.arguments.dropFirst(2).compactMap(\.string), small.controller.presets.all.map(\.name))
    }
}
