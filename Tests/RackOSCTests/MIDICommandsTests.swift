import Foundation
import XCTest
import RackEngine
@testable import RackOSC
import RackWire

/// MIDI on the control side: a CC's echo becomes the target (get, subscribers, not counted as
/// scheduled), program changes recall presets, learn/map/unmap, and the map file.
final class MIDICommandsTests: XCTestCase {
    private func rig() -> (Rig, MIDIControl) {
        let rig = Rig()
        let path = rig.temporaryDirectory() + "/rack/midi.json"
        let midi = MIDIControl(link: MIDILink(map: .defaults, channelFilter: 0), path: path)
        rig.controller.midi = midi
        return (rig, midi)
    }

    /// One process cycle with `bytes` at frame 0, then the controller's MIDI pass and relay.
    private func cycle(_ rig: Rig, _ midi: MIDIControl, _ bytes: [UInt8] = []) {
        var out = [UInt8](repeating: 0, count: 3 * 64)
        _ = midi.link.router.pointee.beginCycle(rig.engine.core, out: &out, capacity: 64)
        if !bytes.isEmpty {
            bytes.withUnsafeBufferPointer { midi.link.router.pointee.receive($0.baseAddress!, count: bytes.count, frame: 0, core: rig.engine.core) }
        }
        rig.render()
        rig.controller.pollMIDI()
        rig.controller.serveOnce()
    }

    func testACCIsAChangeLikeAnyOther() {
        let (rig, midi) = rig()
        rig.send("/rack/subscribe")
        _ = rig.replies()
        // One change scheduled a second ahead: the control side counts it until its echo.
        rig.send(OSCPacket.bundle([OSCMessage("/rack/cutoff", [.float(500)])], timeTag: rig.timeTag(in: 1)))
        XCTAssertEqual(rig.controller.scheduledInFlight, 1)
        cycle(rig, midi, [0xB0, 7, 0])
        XCTAssertEqual(rig.controller.targets[.gain], -60)
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/gain", [.float(-60)])], "subscribers hear it")
        rig.send("/rack/get", [.string("gain")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/gain", [.float(-60)])])
        // A MIDI echo is not the echo of a scheduled event: the count stays.
        XCTAssertEqual(rig.controller.scheduledInFlight, 1)
    }

    func testProgramChangeRecallsPresetNumberN() {
        let (rig, midi) = rig()
        cycle(rig, midi, [0xC0, 1])
        cycle(rig, midi)
        let preset = rig.controller.presets.preset(index: 1)!
        XCTAssertEqual(rig.controller.lastPreset, preset.name)
        XCTAssertEqual(rig.controller.targets, preset.state)
        cycle(rig, midi, [0xC0, 120])   // no such preset: ignored (logged)
        XCTAssertEqual(rig.controller.lastPreset, preset.name)
    }

    /// A flood of unknown program changes wrote one stderr line each; now at most
    /// `midiLinesPerSecond` a second, and the first line of the next second counts the rest.
    func testAProgramChangeFloodIsRateLimited() {
        let (rig, midi) = rig()
        var lines: [String] = []
        rig.controller.log = { lines.append($0) }
        let limit = ControllerTuning.midiLinesPerSecond
        for _ in 0..<1_000 { cycle(rig, midi, [0xC0, 120]) }
        XCTAssertEqual(lines.count, limit, "one second's budget, not 1,000 lines")
        XCTAssertTrue(lines.allSatisfy { $0 == "MIDI program change 120: unknown preset 120" }, "\(lines.prefix(3))")
        rig.now += 1.5
        cycle(rig, midi, [0xC0, 120])
        XCTAssertEqual(lines.count, limit + 2)
        XCTAssertEqual(lines[limit], "MIDI: \(1_000 - limit) program-change lines left out (at most \(limit) a second)")
        XCTAssertEqual(lines[limit + 1], "MIDI program change 120: unknown preset 120")
    }

    /// Without a home (`HOME=""`) there is no map file: a change holds in memory
    /// and is refused a save with one line, instead of writing `/.config/rack/midi.json`.
    func testWithoutAHomeTheMapIsNotSavedAndSaysSo() throws {
        XCTAssertNil(MIDIMapFile.defaultPath(environment: ["HOME": ""]))
        XCTAssertEqual(MIDIMapFile.defaultPath(environment: ["HOME": "/h"]), "/h/.config/rack/midi.json")
        let rig = Rig()
        let midi = MIDIControl(link: MIDILink(map: .defaults, channelFilter: 0), path: nil)
        rig.controller.midi = midi
        rig.send("/rack/midi/unmap", [.int(74)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/midi/unmap", MIDIMapFile.noFileReason)])
        XCTAssertFalse(midi.link.map.bindings.contains { $0.controller == 74 }, "the change holds until rack stops")
    }

    func testLearnMapUnmapAndTheFile() throws {
        let (rig, midi) = rig()
        rig.send("/rack/midi/learn", [.string("mix")])
        XCTAssertEqual(rig.replies(), [])
        cycle(rig, midi, [0xB4, 20, 5])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/midi/map", [.int(5), .int(20), .string("mix")])])
        cycle(rig, midi)   // the new map reaches the render thread
        cycle(rig, midi, [0xB4, 20, 127])
        XCTAssertEqual(rig.controller.targets[.mix], 100)
        rig.send("/rack/midi/unmap", [.int(71)])
        rig.send("/rack/midi/map")
        let expected: [(Int32, Int32, String)] = [(0, 7, "gain"), (5, 20, "mix"), (0, 74, "cutoff"), (0, 91, "mix")]
        XCTAssertEqual(rig.replies(), expected.map { OSCMessage("/rack/midi/map", [.int($0.0), .int($0.1), .string($0.2)]) })
        let saved = try MIDIMapFile.load(path: try XCTUnwrap(midi.path))
        XCTAssertEqual(saved, midi.link.map)
        XCTAssertEqual(saved.bindings.map(\.controller), [7, 20, 74, 91])
        rig.send("/rack/midi/unmap", [.int(71)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/midi/unmap", "CC 71 is not mapped")])
        rig.send("/rack/midi/learn", [.string("room")])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/midi/learn", "room is a choice, not a range a controller can sweep")])
    }

    func testMapFileErrorsNameTheFileAndTheReason() {
        let bad: [(String, String)] = [
            ("[]", "not a JSON object"),
            ("{}", "no \"bindings\" list"),
            ("{\"bindings\": [{\"cc\": 300, \"param\": \"gain\"}]}", "binding 1: controller 300 is not 0…127"),
            ("{\"bindings\": [{\"cc\": 1, \"param\": \"volume\"}]}", "binding 1: unknown parameter 'volume'"),
            ("{\"bindings\": [{\"cc\": 1, \"param\": \"gain\"}, {\"cc\": 1, \"param\": \"mix\"}]}", "binding 2: CC 1 is bound twice"),
        ]
        for (text, reason) in bad {
            XCTAssertThrowsError(try MIDIMapFile.decode(Data(text.utf8), path: "m.json")) { e in
                XCTAssertEqual((e as? RackError)?.message, "MIDI map 'm.json': \(reason)")
            }
        }
        XCTAssertEqual(try MIDIMapFile.decode(Data(MIDIMapFile.encode(.defaults).utf8), path: "m.json"), .defaults)
    }
}
