import XCTest
import RackDSP
@testable import RackEngine

/// Each row of the parameter table feeds one kernel setting through its conversion.
final class KernelBindingTests: XCTestCase {
    func testNoTwoRowsFeedTheSameSetting() {
        let settings = Parameters.all.map(\.binding.setting)
        for (i, s) in settings.enumerated() {
            XCTAssertFalse(settings[(i + 1)...].contains(s), "\(Parameters.all[i].name) shares \(s)")
        }
    }

    func testTheSettingsAreTheValuesThroughEachRowsConversion() {
        var state = RackState()
        state[.cutoff] = 900
        state[.resonance] = 6
        state[.mix] = 30
        state[.gain] = -6
        state[.bypass] = 1
        state[.decay] = 4
        state[.predelay] = 40
        state[.damping] = 2000
        state[.lowcut] = 200
        state[.highcut] = 5000
        state[.width] = 150
        state[.freeze] = 1
        let k = KernelSettings(state)
        XCTAssertEqual(k.lowPass, StateVariableFilter.Setting(cutoffHz: 900, resonanceDecibels: 6))
        XCTAssertEqual(k.wetShare, 0.3)
        XCTAssertEqual(k.outputGainDecibels, -6)
        XCTAssertEqual(k.bypassShare, 1)
        XCTAssertEqual(k.shape, ReverbShape(decaySeconds: 4, predelaySeconds: 0.04, dampingHz: 2000, lowcutHz: 200,
                                            highcutHz: 5000, width: 1.5, freeze: true))
    }

    func testTheControlsThatFollowTheRoomAreTheRowsBoundToTheShape() {
        XCTAssertEqual(ReverbControls.followingRoom, [.decay, .predelay, .damping, .lowcut, .highcut, .width, .freeze])
        for room in Room.allCases {
            XCTAssertEqual(KernelSettings(RackState(room: room)).shape, room.shape, "\(room.name)'s own values give its shape")
        }
    }
}

extension RackState {
    /// A rack at its defaults with `room` chosen alone (the room rule applied).
    init(room: Room) {
        self.init()
        self.room = room
        for (id, v) in RoomRule.implied(by: room) { self[id] = v }
    }
}
