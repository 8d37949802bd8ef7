import XCTest
import RackDSP
@testable import RackEngine

/// The two paths of events through the engine: immediate events never wait behind scheduled
/// ones, scheduled ones wait in a bounded list, nothing posted is lost without a count, and a
/// restart takes up a new state without ramps.
final class EventPathTests: XCTestCase {
    var left = [Float](repeating: 0, count: 256), right = [Float](repeating: 0, count: 256)

    func render(_ engine: Engine, blocks: Int = 1) {
        for _ in 0..<blocks {
            XCTAssertEqual(engine.render(frames: 256, inputLeft: nil, inputRight: nil, outputLeft: &left, outputRight: &right),
                           .insufficientDataFromInputNode)
        }
    }

    /// The events `engine` told of as applied since the last look.
    func applied(_ engine: Engine) -> [AppliedEvent] {
        var events: [AppliedEvent] = []
        while let n = engine.nextNotice() {
            if case let .applied(e) = n { events.append(e) }
        }
        return events
    }

    func change(_ t: Int64, _ p: ParameterID, _ v: Double) -> EngineEvent { change(.at(t), p, v) }

    func change(_ t: EventTime, _ p: ParameterID, _ v: Double) -> EngineEvent {
        EngineEvent(t, .set(p, v, ramp: .standard))
    }

    func testImmediateEventsNeverWaitBehindScheduledOnes() {
        // The scheduled list is full of far-future events: an immediate change still sounds.
        let engine = Engine(sampleRate: 48_000, maxFrames: 256, queueCapacity: 64, pendingCapacity: 8)
        for i in 0..<8 { XCTAssertTrue(engine.post(change(48_000 * 3600 + Int64(i), .mix, 1))) }
        XCTAssertTrue(engine.post(change(.now, .cutoff, 800)))
        XCTAssertTrue(engine.post(EngineEvent(.now, .stop)))
        render(engine)
        XCTAssertEqual(engine.targets[.cutoff], 800, "the immediate change was applied")
        XCTAssertEqual(engine.monitor.get(.droppedEvents), 0, "nothing was dropped")
        XCTAssertEqual(engine.monitor.get(.playing), 0, "the transport event was applied")
        XCTAssertEqual(engine.targets[.mix], 50, "the scheduled ones wait for their time")
    }

    func testImmediateEventsApplyAtTheBlockStartInArrivalOrderBeforeDueScheduledOnes() {
        let engine = Engine(sampleRate: 48_000, maxFrames: 256)
        render(engine)   // sample time 256
        // A scheduled event already due (late), then two immediate ones for the same parameter.
        XCTAssertTrue(engine.post(change(100, .gain, -10)))
        XCTAssertTrue(engine.post(change(.now, .gain, -3)))
        XCTAssertTrue(engine.post(change(.now, .gain, -6)))
        render(engine)
        let echoes = applied(engine)
        XCTAssertEqual(echoes.map { $0.action.parameterChange?.value }, [-3, -6, -10], "immediate ones first, in arrival order")
        XCTAssertEqual(echoes.map(\.sampleTime), [256, 256, 256], "all at the block start")
    }

    func testEchoesAreNeverLostWhenEverythingIsInFlight() {
        // Worst case for the notice queue: a full control queue of immediate events and a full
        // scheduled list falling due in the same block, with nobody draining the echoes.
        let engine = Engine(sampleRate: 48_000, maxFrames: 256, queueCapacity: 64, pendingCapacity: 64)
        for i in 0..<64 { XCTAssertTrue(engine.post(change(200, .mix, Double(i)))) }
        render(engine)                                          // drained into the scheduled list
        for i in 0..<64 { XCTAssertTrue(engine.post(change(.now, .gain, -Double(i) / 4))) }
        render(engine, blocks: 3)
        var n = 0
        while engine.nextNotice() != nil { n += 1 }
        XCTAssertEqual(n, 128)
        XCTAssertEqual(engine.monitor.get(.droppedFeedback), 0)
        XCTAssertEqual(engine.monitor.get(.droppedEvents), 0)
    }

    func testRestartDropsScheduledEventsAndJumpsToTheNewState() {
        let engine = Engine(sampleRate: 48_000, maxFrames: 256)
        XCTAssertTrue(engine.post(change(48_000, .mix, 5)))
        XCTAssertTrue(engine.post(change(48_001, .gain, -5)))
        render(engine)
        XCTAssertEqual(engine.scheduledWaiting, 2)
        var state = RackState()
        state[.cutoff] = 500
        state.room = .plate
        XCTAssertTrue(engine.post(.restart))
        for e in state.events(at: .now, ramp: .jump) { XCTAssertTrue(engine.post(e)) }
        render(engine)
        XCTAssertEqual(engine.scheduledWaiting, 0, "the old schedule is gone")
        XCTAssertEqual(engine.targets, state)
        XCTAssertFalse(engine.core.pointee.isRamping, "taken up at once, no ramp")
        XCTAssertEqual(engine.core.pointee.currentValue(.cutoff), 500)
        XCTAssertEqual(engine.nextNotice(), .restarted(droppedEvents: 2), "the restart's notice counts what it dropped")
        render(engine, blocks: 200)
        XCTAssertEqual(engine.targets, state, "nothing of the old schedule applies later")
    }

    func testTheOfflinePathNeverDrops() {
        // The offline driver schedules from its own thread: the list grows instead of dropping.
        let engine = Engine(sampleRate: 48_000, maxFrames: 256, pendingCapacity: 4)
        for i in 0..<20 { engine.schedule(change(Int64(i), .mix, Double(i))) }
        render(engine)
        XCTAssertEqual(engine.targets[.mix], 19)
        XCTAssertEqual(engine.monitor.get(.droppedEvents), 0)
    }
}
