import Foundation
import XCTest
import RackDSP
import RackPlugin
@testable import RackEngine
@testable import RackFiles

/// The one state codec (`RackState.decode`) and the one clamp, on every path that reads a state
/// or a host's value.
final class StateCodecTests: XCTestCase {
    /// A preset holding every parameter but `left` (the name first), as `Preset.json` writes it.
    func presetText(leaving left: ParameterID, from state: RackState) -> String {
        let fields = [("name", "\"Partial\"")] + state.encodedFields.filter { $0.name != Parameters[left].name }
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    func testAPresetMissingAFieldLoadsWithThatFieldsDefault() throws {
        // Every row moved off its default, so a field left out shows.
        var moved = RackState()
        for spec in Parameters.all where !ReverbControls.followingRoom.contains(spec.id) {
            moved[spec.id] = spec.defaultValue == spec.maximum ? spec.minimum : spec.maximum
        }
        for spec in Parameters.all where !ReverbControls.followingRoom.contains(spec.id) {
            let preset = try Preset.parse(Data(presetText(leaving: spec.id, from: moved).utf8), isFactory: false, path: nil)
            XCTAssertEqual(preset.state[spec.id], spec.defaultValue, "\(spec.name) left out takes its default")
            for other in Parameters.all where other.id != spec.id && !ReverbControls.followingRoom.contains(other.id) {
                XCTAssertEqual(preset.state[other.id], moved[other.id], "\(other.name) as the file gives it")
            }
        }
    }

    func testAControlLeftOutTakesTheRoomsOwnValue() throws {
        let text = "{\"name\": \"Old\", \"cutoff\": 1000, \"resonance\": 0, \"mix\": 50, \"gain\": 0, \"room\": \"cathedral\"}"
        let preset = try Preset.parse(Data(text.utf8), isFactory: false, path: nil)
        for id in ReverbControls.followingRoom {
            XCTAssertEqual(preset.state[id], Parameters[id].missingValue(room: .cathedral))
            XCTAssertEqual(preset.state[id], RoomRule.implied(by: .cathedral).first { $0.0 == id }?.1)
        }
    }

    /// A host's value (an LV2 port, a CLAP event) is clamped as the table clamps: a toggle at
    /// 0.3 is off and at 0.7 on, a choice is rounded to an index, a number is held to the range.
    func testThePluginClampsAsTheTableDoes() {
        for spec in Parameters.all {
            let limits = ControlLimits(spec)
            let span = spec.maximum - spec.minimum
            for v in [spec.minimum - 1, spec.minimum + 0.3 * span, spec.minimum + 0.5 * span, spec.minimum + 0.7 * span,
                      spec.minimum + 0.3, spec.minimum + 1.5, spec.maximum + 1] {
                XCTAssertEqual(limits.accept(v), spec.clamp(v), "\(spec.name) at \(v)")
            }
            XCTAssertNil(limits.accept(.nan), "NaN leaves \(spec.name) where it is")
        }
        XCTAssertEqual(ControlLimits(Parameters[.bypass]).accept(0.3), 0)
        XCTAssertEqual(ControlLimits(Parameters[.freeze]).accept(0.7), 1)
    }
}
