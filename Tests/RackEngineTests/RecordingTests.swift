import XCTest
import RackDSP
@testable import RackEngine
@testable import RackFiles

/// A recording says the state it starts from, loops when the live player did, and
/// writes values as the parameter resolves them.
final class RecordingTests: XCTestCase {
    let noPresets = PresetStore(factoryDirectory: "/nonexistent", userDirectory: "/nonexistent")

    func parse(_ text: String, length: Double? = nil) -> Automation {
        Automation.parse(text, presetNames: ["Warm"], presetAtIndex: { _ in nil }, length: length)
    }

    /// The starting lines name every parameter of the table (iterated, so rows added later
    /// are in), the preset in a comment, the loop flag and the position; read back, they are the state at
    /// time 0 and no engine event (nothing ramps from a state never heard).
    func testTheStartingLinesAreTheStateAReplayStartsFrom() {
        var state = RackState()
        for spec in Parameters.all { state[spec.id] = spec.value(normalized: 0.3) }
        let lines = AutomationWriter.startingLines(state: state, preset: "Warm", loop: true, positionSeconds: 1.25)
        XCTAssertEqual(lines.count, Parameters.all.count + 3, lines.joined(separator: "\n"))
        XCTAssertEqual(lines.first, "# preset Warm: its values follow", "the name only in a comment: the values replay anywhere")
        for spec in Parameters.all {
            XCTAssertTrue(lines.contains { $0.hasPrefix("0.000000 \(spec.address) ") }, spec.name)
        }
        let a = parse(lines.joined(separator: "\n") + "\n10 /rack/cutoff 500\n", length: 2)
        XCTAssertEqual(a.diagnostics, [], "a loop turned on: an event past the input's end applies")
        XCTAssertTrue(a.loops)
        XCTAssertEqual(a.startSeconds, 1.25)
        var warm = RackState()
        warm[.cutoff] = 384
        let start = a.startingState(from: RackState(), presetState: { $0 == "Warm" ? warm : nil })
        for spec in Parameters.all {
            XCTAssertEqual(Float(start[spec.id]), Float(state[spec.id]), "\(spec.name): the written value, not Warm's")
        }
        let events = a.engineEvents(sampleRate: 48_000, presets: noPresets)
        XCTAssertEqual(events.map(\.time.sample), [480_000], "only the change at 10 s is an engine event")
    }

    /// A change at time 0 with a ramp still ramps; without a loop, events past the end warn.
    func testOnlyUnrampedChangesAtZeroAreTheStartingState() {
        let a = parse("0 /rack/cutoff 300 2\n0 /rack/mix 10\n3 /rack/gain -6\n", length: 2)
        XCTAssertEqual(a.engineEvents(sampleRate: 1000, presets: noPresets).map(\.time.sample), [0, 3000])
        XCTAssertEqual(a.startingState(from: RackState(), presetState: { _ in nil })[.mix], 10)
        XCTAssertEqual(a.warnings.count, 1, "\(a.diagnostics)")
        XCTAssertFalse(a.loops)
    }

    /// An event at exactly the input's length is not heard (the render ends there): the warning
    /// says it is at the end; one beyond it is past the end.
    func testAnEventAtTheEndIsNotCalledPastIt() {
        let a = parse("1 /rack/mix 10\n2 /rack/mix 20\n2.5 /rack/mix 30\n", length: 2)
        XCTAssertEqual(a.warnings.map(\.message), [
            "event at 2 s is at the end of the input (2 s): nothing after it is rendered, so it is ignored",
            "event at 2.5 s is past the end of the input (2 s) and is ignored",
        ])
        XCTAssertEqual(a.engineEvents(sampleRate: 1000, presets: noPresets, lengthFrames: 2000).map(\.time.sample), [1000],
                       "neither is rendered")
    }

    func testLoopAndSeekLinesParseAndRefuseBadArguments() {
        let a = parse("0 /rack/player/seek 0.5\n1 /rack/player/loop 0\n2 /rack/player/loop 1\n3 /rack/player/seek 1\n")
        XCTAssertEqual(a.events.map(\.action), [.seek(seconds: 0.5), .loop(false), .loop(true), .seek(seconds: 1)])
        XCTAssertEqual(a.loopChanges.map(\.on), [false, true])
        XCTAssertEqual(a.warnings.map(\.line), [4], "a seek after 0 is not replayed offline: said")
        XCTAssertEqual(a.endSeconds, 3)
        let bad = parse("0 /rack/player/loop 2\n0 /rack/player/loop\n0 /rack/player/seek -1\n0 /rack/player/seek x\n")
        XCTAssertEqual(bad.errors.map(\.line), [1, 2, 3, 4])
    }

    /// Values are written as the shortest text of the 32-bit float OSC carries: no
    /// `89.99999761581421` for a mix that /norm 0.9 set.
    func testValuesAreWrittenAsTheParameterResolvesThem() {
        let mix = Parameters[.mix]
        let applied = mix.value(normalized: Double(Float(0.9)))
        XCTAssertNotEqual(formatNumber(applied), "90")
        XCTAssertEqual(AutomationWriter.value(applied, of: mix), "90")
        XCTAssertEqual(AutomationWriter.value(1234.5, of: Parameters[.cutoff]), "1234.5")
        XCTAssertEqual(AutomationWriter.value(-3, of: Parameters[.gain]), "-3")
        let line = AutomationWriter.line(for: AppliedEvent(.set(.mix, applied, ramp: .standard), sampleTime: 48_000),
                                         sampleRate: 48_000, origin: 0)
        XCTAssertEqual(line, "1.000000 /rack/mix 90")
        for spec in Parameters.all where spec.taper != .choice {
            let v = spec.value(normalized: 0.37)
            let back = Double(AutomationWriter.value(v, of: spec))!
            XCTAssertEqual(Float(back), Float(v), spec.name)
        }
    }
}
