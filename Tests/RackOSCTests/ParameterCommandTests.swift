import Foundation
import XCTest
import RackDSP
import RackEngine
@testable import RackOSC
import RackWire

/// `/rack/PARAMETER`, `/rack/PARAMETER/norm`, `/rack/get`, `/rack/dump`.
final class ParameterCommandTests: XCTestCase {
    func testSetGetClampAndReject() {
        let rig = Rig()
        rig.send("/rack/cutoff", [.float(800)])
        rig.send("/rack/get", [.string("cutoff")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/cutoff", [.float(800)])])
        rig.send("/rack/mix", [.int(30)])
        rig.send("/rack/get", [.string("mix")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/mix", [.float(30)])])
        rig.send("/rack/gain", [.float(40)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/gain", "clamped to 12")], "clamped, applied and reported")
        XCTAssertEqual(rig.controller.targets[.gain], 12)
        rig.send("/rack/gain", [.double(-100), .float(0.5)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/gain", "clamped to -60")])
        XCTAssertEqual(rig.controller.targets[.gain], -60)
        rig.send("/rack/room", [.string("plate")])
        rig.send("/rack/get", [.string("room")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/room", [.string("plate")])])
    }

    func testRefusedValuesAreNotApplied() {
        let rig = Rig()
        let cases: [(String, [OSCValue], String)] = [
            ("/rack/resonance", [.float(.nan)], "value must be finite"),
            ("/rack/resonance", [.float(.infinity)], "value must be finite"),
            ("/rack/resonance", [.double(-.infinity)], "value must be finite"),
            ("/rack/resonance", [.string("loud")], "expects a number (f or i), got s:loud"),
            ("/rack/resonance", [.bool(true)], "expects a number (f or i), got T"),
            ("/rack/resonance", [], "expects a value and an optional ramp time"),
            ("/rack/resonance", [.float(1), .float(1), .float(1)], "expects a value and an optional ramp time"),
            ("/rack/cutoff", [.float(500), .float(-1)], "ramp time must not be negative"),
            ("/rack/cutoff", [.float(500), .float(.nan)], "ramp time must be finite"),
            ("/rack/cutoff", [.float(500), .float(3601)], "ramp time must be at most 3600 s"),
            ("/rack/cutoff", [.float(500), .string("slow")], "ramp time must be a number of seconds"),
            ("/rack/cutoff/norm", [.string("x")], "expects a number (f or i), got s:x"),
            ("/rack/room", [.string("noSuchRoom")], "unknown room 'noSuchRoom' (one of \(Room.allCases.map(\.name).joined(separator: ", ")))"),
            ("/rack/room", [.int(2)], "expects a room name (s)"),
            ("/rack/room", [], "expects a room name and an optional crossfade time"),
            ("/rack/room", [.string("plate"), .float(-1)], "ramp time must not be negative"),
        ]
        for (address, args, reason) in cases {
            rig.send(address, args)
            XCTAssertEqual(rig.replies(), [rig.error(address, reason)], "\(address) \(args)")
        }
        rig.settle()
        XCTAssertEqual(rig.controller.targets, RackState(), "nothing bad was applied")
        XCTAssertTrue(rig.controller.lastApplied.isEmpty)
    }

    func testNormalizedAddresses() {
        let rig = Rig()
        rig.send("/rack/cutoff/norm", [.float(0.5)])
        XCTAssertEqual(rig.controller.targets[.cutoff], (12 * 20_000.0).squareRoot(), accuracy: 1e-6, "logarithmic")
        rig.send("/rack/mix/norm", [.float(0.25)])
        XCTAssertEqual(rig.controller.targets[.mix], 25)
        XCTAssertEqual(rig.replies(), [])
        rig.send("/rack/gain/norm", [.float(1.5)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/gain/norm", "normalized value clamped to 1")])
        XCTAssertEqual(rig.controller.targets[.gain], 12)
    }

    func testGet() {
        let rig = Rig()
        for spec in Parameters.all {
            rig.send("/rack/get", [.string(spec.name)])
            XCTAssertEqual(rig.replies(), [ParameterCommands.valueMessage(spec, spec.defaultValue)])
        }
        rig.send("/rack/get", [.string("bogus")])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/get", "unknown parameter 'bogus'")])
        rig.send("/rack/get", [.string("dampnig")])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/get", "unknown parameter 'dampnig' (did you mean damping?)")])
        rig.send("/rack/get", [.int(0)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/get", "expects one string: a parameter name")])
    }

    func testDumpOrderAndTypes() {
        let rig = Rig()
        rig.send("/rack/dump")
        XCTAssertEqual(Array(rig.replies().prefix(5)), [
            OSCMessage("/rack/cutoff", [.float(20_000)]), OSCMessage("/rack/resonance", [.float(0)]),
            OSCMessage("/rack/mix", [.float(50)]), OSCMessage("/rack/gain", [.float(0)]),
            OSCMessage("/rack/room", [.string("mediumHall")]),
        ])
        rig.send("/rack/dump")
        XCTAssertEqual(rig.replies(), Parameters.all.map { ParameterCommands.valueMessage($0, $0.defaultValue) }
            + [OSCMessage("/rack/preset", [.string("")])], "every row of the table, in its order")
        XCTAssertEqual(ParameterCommands.valueMessage(Parameters[.decay], Parameters[.decay].defaultValue),
                       OSCMessage("/rack/decay", [.float(Float(Room.default.shape.decaySeconds))]))
    }

    func testAFullQueueIsBusyAndNothingChanges() {
        let rig = Rig(queueCapacity: 4)
        while rig.engine.post(EngineEvent(.now, .play)) {}
        rig.controller.handle(OSCMessage("/rack/cutoff", [.float(800)]), timeTag: .immediately, from: rig.client)
        rig.controller.handle(OSCMessage("/rack/gain", [.float(40)]), timeTag: .immediately, from: rig.client)
        XCTAssertEqual(rig.replies(), [rig.error("/rack/cutoff", "busy: the render thread's queue is full"),
                                       rig.error("/rack/gain", "clamped to 12"),
                                       rig.error("/rack/gain", "busy: the render thread's queue is full")])
        XCTAssertEqual(rig.controller.targets, RackState())
    }

    func testFutureTimetagAppliesAtItsSample() {
        let rig = Rig()
        let bundle = OSCPacket.bundle([OSCMessage("/rack/mix", [.float(10)])], timeTag: rig.timeTag(in: 0.1))
        rig.send(bundle)
        rig.send("/rack/gain", [.float(-6)])   // immediate, after the future one
        rig.settle(blocks: 40)                 // ~0.21 s
        // The echoes say when each took effect: gain first, at once; mix about 0.1 s later.
        XCTAssertEqual(rig.controller.lastApplied.map { $0.action.parameterChange?.parameter }, [.gain, .mix])
        let t = rig.controller.lastApplied.map(\.sampleTime)
        XCTAssertLessThan(t[0], 512)
        XCTAssertEqual(Double(t[1]) / 48_000, 0.1, accuracy: 0.02)
        XCTAssertEqual(rig.controller.lastApplied.map(\.isScheduled), [false, true])
    }

    func testAPastTimetagAppliesAtOnce() {
        let rig = Rig()
        rig.send(OSCPacket.bundle([OSCMessage("/rack/mix", [.float(10)])], timeTag: rig.timeTag(in: -10)))
        XCTAssertEqual(rig.controller.targets[.mix], 10, "an immediate change is the target at once")
    }

    func testGetReportsAScheduledValueOnlyOnceItIsApplied() {
        let rig = Rig()
        rig.send(OSCPacket.bundle([OSCMessage("/rack/resonance", [.float(6)])], timeTag: rig.timeTag(in: 0.05)))
        rig.send("/rack/resonance", [.float(-6)])
        rig.send("/rack/get", [.string("resonance")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/resonance", [.float(-6)])], "the future value is not the target yet")
        rig.settle(blocks: 20)   // ~0.1 s: the scheduled change is applied after the immediate one
        rig.send("/rack/get", [.string("resonance")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/resonance", [.float(6)])], "applied last, so it is the target")
    }

    func testLastAppliedKeepsTheNewest64() {
        let rig = Rig()
        for i in 0..<70 { rig.send("/rack/mix", [.int(Int32(i))]) }
        rig.settle()
        XCTAssertEqual(rig.controller.lastApplied.count, 64)
        XCTAssertEqual(rig.controller.lastApplied.first?.action.parameterChange?.value, 6)
        XCTAssertEqual(rig.controller.lastApplied.last?.action.parameterChange?.value, 69)
    }

    // MARK: The reverb's shaping controls

    func testABundleWithRoomAndDecayKeepsTheDecayAndARoomAloneMovesIt() {
        let rig = Rig()
        rig.send(OSCPacket.bundle([OSCMessage("/rack/decay", [.float(7)]), OSCMessage("/rack/room", [.string("plate")])],
                                  timeTag: .immediately))
        XCTAssertEqual(rig.replies(), [])
        XCTAssertEqual(rig.controller.targets[.decay], 7, "the bundle set decay: the room leaves it")
        XCTAssertEqual(rig.controller.targets[.damping], Room.plate.shape.dampingHz, "the room brings its damping")
        rig.send("/rack/width", [.float(40)])
        rig.send("/rack/room", [.string("cathedral")])
        XCTAssertEqual(rig.controller.targets[.decay], Room.cathedral.shape.decaySeconds, "a room alone brings its decay")
        XCTAssertEqual(rig.controller.targets[.width], 100, "and its width")
        rig.settle()
        XCTAssertEqual(rig.engine.core.pointee.targets, rig.controller.targets, "the engine has what the control side says")
    }

    func testTogglesTakeNumbersAndTrueFalse() {
        let rig = Rig()
        rig.send("/rack/freeze", [.bool(true)])
        XCTAssertEqual(rig.replies(), [])
        XCTAssertEqual(rig.controller.targets[.freeze], 1)
        rig.send("/rack/freeze", [.int(0)])
        XCTAssertEqual(rig.controller.targets[.freeze], 0)
        rig.send("/rack/bypass", [.float(0.7)])
        XCTAssertEqual(rig.controller.targets[.bypass], 1)
        XCTAssertEqual(rig.replies(), [rig.error("/rack/bypass", "clamped to 1")], "a toggle's value is 0 or 1")
        rig.send("/rack/bypass/norm", [.float(0.2)])
        XCTAssertEqual(rig.controller.targets[.bypass], 0)
        // The README: 0.5 or more is on, reported as clamped.
        rig.send("/rack/freeze", [.float(0.5)])
        XCTAssertEqual(rig.controller.targets[.freeze], 1)
        XCTAssertEqual(rig.replies(), [rig.error("/rack/freeze", "clamped to 1")])
        rig.send("/rack/freeze", [.float(0.4999)])
        XCTAssertEqual(rig.controller.targets[.freeze], 0)
        XCTAssertEqual(rig.replies(), [rig.error("/rack/freeze", "clamped to 0")])
        rig.send("/rack/cutoff", [.bool(true)])
        XCTAssertEqual(rig.replies().map(\.address), ["/rack/error"], "T is not a number for a range")
        rig.send("/rack/decay", [.float(2.5), .float(0.5)])
        XCTAssertEqual(rig.replies(), [])
        rig.send("/rack/get", [.string("decay")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/decay", [.float(2.5)])])
    }
}
