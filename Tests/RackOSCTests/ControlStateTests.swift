import XCTest
import RackDSP
import RackEngine
@testable import RackOSC
import RackWire

/// `ControlState`, the rack's one writer of targets, and the change stream every sink follows.
final class ControlStateTests: XCTestCase {
    private func parameters(_ id: ParameterID, _ value: Double) -> StateChange {
        .parameters([(id: id, value: value, ramp: .standard)])
    }

    func testAnImmediateChangeIsTheTargetWhenPostedAndToldByItsEcho() {
        var state = ControlState(targets: RackState(), preset: "")
        let change = parameters(.mix, 30)
        let events = state.events(for: change, at: .now)
        XCTAssertEqual(events, [EngineEvent(.now, .set(.mix, 30, ramp: .standard))])
        XCTAssertEqual(state.commit(change, at: .now, posted: true, origin: nil), [], "told by its echo, not now")
        XCTAssertEqual(state.targets[.mix], 30)
        let echo = AppliedEvent(.set(.mix, 30, ramp: .standard), sampleTime: 512)
        XCTAssertEqual(state.absorb(echo), [ChangeRecord(change: .parameter(.mix, 30), source: .control, echo: echo)])
    }

    func testAScheduledChangeIsTheTargetOnlyWhenItsEchoComesBack() {
        var state = ControlState(targets: RackState(), preset: "")
        let change = parameters(.gain, -6)
        XCTAssertEqual(state.commit(change, at: .at(48_000), posted: true, origin: nil), [])
        XCTAssertEqual(state.targets[.gain], 0, "get/dump never run ahead of the sound")
        let echo = AppliedEvent(.set(.gain, -6, ramp: .standard), sampleTime: 48_000, isScheduled: true)
        XCTAssertEqual(state.absorb(echo).map(\.change), [.parameter(.gain, -6)])
        XCTAssertEqual(state.targets[.gain], -6)
    }

    func testAChangeWhileNoServerRunsIsToldAtOnce() {
        var state = ControlState(targets: RackState(), preset: "")
        let records = state.commit(parameters(.cutoff, 800), at: .now, posted: false, origin: nil)
        XCTAssertEqual(records, [ChangeRecord(change: .parameter(.cutoff, 800), source: .whileAway)])
        XCTAssertEqual(state.targets[.cutoff], 800)
    }

    func testAMIDIControllerIsKnownFromItsEcho() {
        var state = ControlState(targets: RackState(), preset: "")
        let echo = AppliedEvent(.midiSet(.mix, 75), sampleTime: 100)
        XCTAssertEqual(state.absorb(echo), [ChangeRecord(change: .parameter(.mix, 75), source: .midiController, echo: echo)])
        XCTAssertEqual(state.targets[.mix], 75)
    }

    func testARejoinTellsNothingNewAndAPresetsParametersBelongToIt() {
        var state = ControlState(targets: RackState(), preset: "")
        let jump = AppliedEvent(.set(.mix, 50, ramp: .jump), sampleTime: 0)
        XCTAssertEqual(state.absorb(jump).map(\.source), [.rejoin])
        var warm = RackState()
        warm[.mix] = 20
        let recall = StateChange.preset(name: "Warm", state: warm, rampFrames: 0)
        let events = state.events(for: recall, at: .now)
        XCTAssertEqual(events.count, 1 + Parameters.all.count, "a marker, then every parameter")
        XCTAssertEqual(state.commit(recall, at: .now, posted: true, origin: nil), [])
        XCTAssertEqual(state.targets, warm)
        XCTAssertEqual(state.preset, "Warm")
        let echoes = events.flatMap { e in state.absorb(AppliedEvent(e.action, sampleTime: 256)) }
        XCTAssertEqual(echoes.first?.change, .preset(name: "Warm", rampFrames: 0))
        XCTAssertEqual(echoes.dropFirst().map(\.change), Parameters.all.map { .parameter($0.id, warm[$0.id]) },
                       "the recall's values follow its record, each with its echo (the recording writes them)")
    }

    func testEverySinkSeesEveryRecordInTheOrderItSubscribed() {
        let stream = ChangeStream()
        var seen: [String] = []
        stream.subscribe { _ in seen.append("first") }
        stream.subscribe { _ in seen.append("second") }
        stream.publish([ChangeRecord(change: .parameter(.mix, 1), source: .control),
                        ChangeRecord(change: .parameter(.gain, 2), source: .control)])
        XCTAssertEqual(seen, ["first", "second", "first", "second"])
    }

    func testTheLedgerIgnoresScheduledEchoesOfBeforeAnOutage() {
        var ledger = EngineLedger()
        ledger.posted(scheduled: 2)
        let old = AppliedEvent(.set(.mix, 1, ramp: .standard), sampleTime: 10, isScheduled: true)
        XCTAssertTrue(ledger.echoed(old))
        XCTAssertEqual(ledger.scheduled, 1)
        ledger.postedRestart()
        XCTAssertEqual(ledger.scheduled, 0)
        XCTAssertFalse(ledger.echoed(old), "of the time before the outage")
        ledger.restarted()
        ledger.posted(scheduled: 1)
        XCTAssertTrue(ledger.echoed(old))
        XCTAssertEqual(ledger.scheduled, 0)
    }

    func testTheWebPageFollowsTheSameStreamAsSubscribers() {
        let rig = Rig()
        var pushed: [OSCMessage] = []
        rig.controller.subscribeToChanges { if let m = $0.feedbackMessage { pushed.append(m) } }
        let sub = OSCEndpoint(host: "127.0.0.1", port: 9100)!
        rig.send("/rack/subscribe", [.int(Int32(sub.port))])
        rig.send("/rack/mix", [.float(30)])
        rig.send("/rack/preset", [.string("Warm")])
        rig.settle()
        let told = rig.outbox.take(for: sub)
        XCTAssertEqual(told.count, 2 + Parameters.all.count, "mix, then the preset and its every parameter")
        XCTAssertEqual(told.first, OSCMessage("/rack/mix", [.float(30)]))
        XCTAssertEqual(told.dropFirst().first, OSCMessage("/rack/preset", [.string("Warm")]))
        XCTAssertEqual(pushed, told, "the same changes, in the same order")
    }
}
