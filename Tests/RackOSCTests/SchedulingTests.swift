import Foundation
import XCTest
import RackDSP
import RackEngine
@testable import RackOSC
import RackWire

/// Timetagged bundles against the controller: scheduled events are bounded on the control
/// side, immediate changes never vanish behind them, nothing is reported that will not sound,
/// timetags beyond the horizon are refused, and a bundle lands on one sample.
final class SchedulingTests: XCTestCase {
    /// A bundle of `count` `/rack/mix` messages timetagged `seconds` after `rig`'s now.
    func futureBundle(_ rig: Rig, _ count: Int, seconds: Double) -> [UInt8] {
        OSCPacket.bundle((0..<count).map { OSCMessage("/rack/mix", [.float(Float($0 % 100))]) },
                         timeTag: rig.timeTag(in: seconds))
    }

    func errors(_ messages: [OSCMessage]) -> [OSCMessage] { messages.filter { $0.address == "/rack/error" } }

    /// The README: a bundle that says "immediately" (timetag 1), timetag 0, or any time that has
    /// passed, back to 1900, applies at once: no error, and the engine has the value after the
    /// next cycle. Numbers may be `f`, `i`, `d` or `h`.
    func testPassedAndImmediateTimetagsApplyAtOnceAndEveryNumberTypeIsANumber() {
        let rig = Rig()
        let tags: [(String, OSCTimeTag)] = [("immediately", .immediately), ("0", OSCTimeTag(raw: 0)),
                                            ("1900 + 1 s", OSCTimeTag(raw: 1 << 32)),
                                            ("10 s ago", rig.timeTag(in: -10))]
        let values: [OSCValue] = [.float(11), .int(22), .double(33), .int64(44)]
        for ((name, tag), value) in zip(tags, values) {
            rig.send(OSCPacket.bundle([OSCMessage("/rack/mix", [value])], timeTag: tag))
            XCTAssertEqual(rig.replies(), [], name)
            XCTAssertEqual(rig.controller.scheduledInFlight, 0, "\(name): not scheduled")
            XCTAssertEqual(rig.engine.targets[.mix], value.number, "\(name): applied in the next cycle")
        }
    }

    func testTwoBundlesOfFarFutureMessagesDoNotSilenceFadersRecallsOrLoads() throws {
        let rig = Rig()
        let capacity = rig.engine.scheduledCapacity
        rig.send(futureBundle(rig, 3000, seconds: 600))
        rig.send(futureBundle(rig, 3000, seconds: 601))
        // Everything beyond the bound was refused, each with a /rack/error (within the error
        // budget; the rest counted).
        let refused = errors(rig.replies())
        XCTAssertEqual(refused.count + rig.controller.droppedErrorReplies, 6000 - capacity)
        XCTAssertEqual(refused.first, rig.error("/rack/mix", "busy: \(capacity) timetagged changes are already waiting for their time"))
        XCTAssertEqual(rig.controller.scheduledInFlight, capacity)
        XCTAssertEqual(rig.engine.scheduledWaiting, capacity)

        // A fader, a recall and a load: each sounds, and reports what sounds.
        rig.send("/rack/cutoff", [.float(800)])
        rig.settle()
        XCTAssertEqual(rig.engine.targets[.cutoff], 800, "the fader reached the engine")
        rig.send("/rack/preset", [.string("Warm")])
        rig.settle()
        let warm = rig.controller.presets.preset(named: "Warm")!.state
        XCTAssertEqual(Array(warm.values.prefix(3)), [384, -3, 40])
        XCTAssertEqual(rig.engine.targets, warm, "the recall reached the engine")
        XCTAssertEqual(rig.controller.targets, rig.engine.targets, "and /rack/get says what sounds")
        rig.send("/rack/mix", [.float(0)])
        rig.send("/rack/gain", [.float(0)])  // Warm trims its output by 0.8 dB (its loudness)
        rig.send("/rack/player/load", [.string(try rig.writeTone(seconds: 2))])
        rig.render(blocks: 20)
        XCTAssertGreaterThan(rig.left.map(abs).max() ?? 0, 0.3, "the loaded file sounds")
        XCTAssertEqual(errors(rig.replies()), [])
        XCTAssertEqual(rig.engine.droppedEvents, 0)
        rig.controller.shutDown()
    }

    func testTheBoundIsFreedAsScheduledEventsApply() {
        let rig = Rig()
        let capacity = rig.engine.scheduledCapacity
        rig.send(futureBundle(rig, capacity, seconds: 0.05))
        XCTAssertEqual(rig.controller.scheduledInFlight, capacity)
        rig.send(futureBundle(rig, 1, seconds: 0.05))
        XCTAssertEqual(errors(rig.replies()).count, 1, "full")
        rig.settle(blocks: 12)   // 64 ms: due and applied
        XCTAssertEqual(rig.controller.scheduledInFlight, 0)
        rig.send(futureBundle(rig, 1, seconds: 0.05))
        XCTAssertEqual(rig.replies(), [], "room again")
    }

    func testARecallThatDoesNotFitTheScheduleIsRefusedWhole() {
        let rig = Rig()
        let capacity = rig.engine.scheduledCapacity
        rig.send(futureBundle(rig, capacity - 3, seconds: 60))
        rig.send(OSCPacket.bundle([OSCMessage("/rack/preset", [.string("Warm")])], timeTag: rig.timeTag(in: 1)))
        XCTAssertEqual(errors(rig.replies()).count, 1)
        XCTAssertEqual(rig.controller.scheduledInFlight, capacity - 3, "no part of it was posted")
    }

    func testTimetagsBeyondTheHorizonAreRefusedNotAppliedAtOnce() {
        let rig = Rig()
        let horizon = ControllerTuning.scheduleHorizonSeconds
        rig.send(OSCPacket.bundle([OSCMessage("/rack/cutoff", [.float(500)])], timeTag: rig.timeTag(in: horizon + 10)))
        let reply = rig.replies()
        XCTAssertEqual(reply.count, 1)
        XCTAssertEqual(reply.first?.arguments.first, .string("/rack/cutoff"))
        XCTAssertTrue(reply.first?.arguments.last?.string?.contains("beyond the scheduling horizon of 3600 s") ?? false, "\(reply)")
        rig.settle()
        XCTAssertEqual(rig.engine.targets[.cutoff], 20_000, "not applied at once")
        XCTAssertEqual(rig.engine.scheduledWaiting, 0, "nor scheduled")
        rig.send(OSCPacket.bundle([OSCMessage("/rack/cutoff", [.float(500)])], timeTag: rig.timeTag(in: horizon - 10)))
        XCTAssertEqual(rig.replies(), [], "within the horizon")
        XCTAssertEqual(rig.controller.scheduledInFlight, 1)
    }

    func testAllMessagesOfABundleLandOnOneSample() {
        let rig = Rig()
        rig.host.samplesPerMapping = 7   // the server's clock moves on while a bundle is handled
        let bundle = OSCPacket.bundle([
            OSCMessage("/rack/cutoff", [.float(900)]), OSCMessage("/rack/resonance", [.float(3)]),
            OSCMessage("/rack/mix", [.float(20)]), OSCMessage("/rack/gain", [.float(-4)]),
        ], timeTag: rig.timeTag(in: 0.02))
        rig.send(bundle)
        rig.settle(blocks: 8)
        let applied = rig.controller.lastApplied
        XCTAssertEqual(applied.map { $0.action.parameterChange?.parameter }, [.cutoff, .resonance, .mix, .gain])
        XCTAssertEqual(Set(applied.map(\.sampleTime)).count, 1, "one sample: \(applied.map(\.sampleTime))")
    }

    func testWhileTheServerIsGoneChangesUpdateTheStateAndTheEngineTakesItUpOnRejoin() {
        let rig = Rig()
        let listener = OSCEndpoint(host: "127.0.0.1", port: 9300)!
        rig.send("/rack/subscribe", from: listener)
        rig.send(OSCPacket.bundle([OSCMessage("/rack/gain", [.float(-20)])], timeTag: rig.timeTag(in: 30)))
        rig.settle()
        rig.host.isRunning = false                   // the server went away: nothing renders now
        for i in 0..<10_000 {
            rig.controller.handle(OSCMessage("/rack/mix", [.float(Float(i % 100))]), timeTag: .immediately, from: rig.client)
        }
        rig.controller.handle(OSCMessage("/rack/mix", [.float(33)]), timeTag: .immediately, from: rig.client)
        rig.controller.handle(OSCMessage("/rack/preset", [.string("Bright")]), timeTag: .immediately, from: rig.client)
        rig.controller.handle(OSCMessage("/rack/resonance", [.float(7)]), timeTag: .immediately, from: rig.client)
        XCTAssertEqual(errors(rig.replies()), [], "nothing refused while the server is gone")
        XCTAssertEqual(rig.engine.queueSpace, 4096, "nothing queued for an engine that is not draining")
        var expected = rig.controller.presets.preset(named: "Bright")!.state
        expected[.resonance] = 7
        XCTAssertEqual(rig.controller.targets, expected)
        let told = rig.outbox.take(for: listener)
        XCTAssertEqual(told.suffix(Parameters.all.count + 2).map(\.address), ["/rack/preset"] + Parameters.all.map(\.address) + ["/rack/resonance"],
                       "subscribers are told at once")
        rig.controller.handle(OSCMessage("/rack/cutoff", [.float(100)]), timeTag: rig.timeTag(in: 1), from: rig.client)
        XCTAssertEqual(rig.replies(), [rig.error("/rack/cutoff", "the JACK server is not running: a timetagged change cannot be scheduled")])

        rig.host.isRunning = true                    // rejoined
        rig.controller.serveOnce()
        rig.render()
        XCTAssertEqual(rig.engine.targets, expected, "the engine starts from the latest state")
        XCTAssertFalse(rig.engine.core.pointee.isRamping, "at once: no burst of stale ramps")
        XCTAssertEqual(rig.engine.scheduledWaiting, 0, "the schedule of before the outage is dropped")
        rig.settle(blocks: 10)
        XCTAssertEqual(rig.controller.targets, expected)
        XCTAssertEqual(rig.controller.scheduledInFlight, 0)
        XCTAssertEqual(rig.outbox.take(for: listener), [], "taking up the state is no change to tell")
        rig.send("/rack/cutoff", [.float(2000)])
        rig.settle()
        XCTAssertEqual(rig.engine.targets[.cutoff], 2000, "and goes on as before")
    }

    func testOnePresetWritePerPacket() {
        let rig = Rig()
        rig.send(OSCPacket.bundle([
            OSCMessage("/rack/preset/save", [.string("A")]), OSCMessage("/rack/preset/save", [.string("B")]),
            OSCMessage("/rack/preset/delete", [.string("A")]),
        ], timeTag: .immediately))
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/preset/saved", [.string("A"), .int(-1)]),
                                       rig.error("/rack/preset/save", "busy: one preset save or delete per packet"),
                                       rig.error("/rack/preset/delete", "busy: one preset save or delete per packet")])
        XCTAssertEqual(rig.controller.presets.user.map(\.name), ["A"])
        rig.send("/rack/preset/save", [.string("B")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/preset/saved", [.string("B"), .int(-2)])], "the next packet may write again")
    }
}

/// Datagrams without end, one every millisecond of the controller's test clock.
final class Flood: DatagramSource {
    let datagram: [UInt8]
    let rig: Rig
    var remaining: Int

    init(_ message: OSCMessage, count: Int, rig: Rig) {
        datagram = message.encoded()
        remaining = count
        self.rig = rig
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) -> (Int, OSCEndpoint)? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        rig.now += 0.001
        if remaining % 5 == 0 { rig.render() }   // the render thread keeps going meanwhile
        buffer.copyBytes(from: datagram)
        return (datagram.count, rig.client)
    }
}

final class ControlLoopTests: XCTestCase {
    /// The README: datagrams for at most 20 ms (`ControllerTuning.housekeepingSeconds`), then the
    /// periodic work; on this clock of 1 ms a datagram, the one in hand when the 20 ms pass adds 1 ms.
    func testHousekeepingRunsAtLeastEvery20msUnderASustainedStream() {
        let rig = Rig()
        let meters = OSCEndpoint(host: "127.0.0.1", port: 9400)!
        rig.send("/rack/meter", from: meters)
        let flood = Flood(OSCMessage("/rack/mix", [.float(30)]), count: 2000, rig: rig)   // 2 s
        let start = rig.now
        var runs: [Double] = []
        rig.controller.serve(from: flood, shouldStop: { flood.remaining == 0 && runs.count > 1 }, housekeeping: { runs.append($0); return nil })
        let gaps = zip(runs.dropFirst(), runs).map { $0 - $1 }
        XCTAssertLessThanOrEqual(gaps.max() ?? 1, ControllerTuning.housekeepingSeconds + 0.0011,
                                 "housekeeping gaps: max \(gaps.max() ?? 1) s")
        XCTAssertGreaterThanOrEqual(runs.count, 40)
        let sent = rig.outbox.take(for: meters).filter { $0.address == "/rack/meter" }.count
        // A meter is due every 1/15 s and sent at the next pass: at most 1/15 s + 50 ms apart.
        XCTAssertGreaterThanOrEqual(Double(sent), (rig.now - start) / (1 / ControllerTuning.meterHz + 0.05), "meters kept coming")
    }
}
