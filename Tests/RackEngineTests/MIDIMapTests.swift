import XCTest
@testable import RackEngine
import RackDSP

/// The MIDI map and the render-side router: defaults, ranges, 14-bit pairing, the channel
/// filter, program changes, feedback, and events landing at their frame.
final class MIDIMapTests: XCTestCase {
    func testDefaultMapSpansEachRange() {
        let t = MIDIMap.defaults.table(channelFilter: 0)
        defer { t.deallocate() }
        XCTAssertEqual(MIDITable.value(t.slots[7], position: 0), -60)
        XCTAssertEqual(MIDITable.value(t.slots[7], position: 1), 12)
        XCTAssertEqual(MIDITable.value(t.slots[74], position: 0), 12, accuracy: 1e-9)
        XCTAssertEqual(MIDITable.value(t.slots[74], position: 1), 20_000, accuracy: 1e-6)
        // Logarithmic taper: the middle is the geometric mean.
        XCTAssertEqual(MIDITable.value(t.slots[74], position: 0.5), (12.0 * 20_000).squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(MIDITable.value(t.slots[71], position: 0.5), 0, accuracy: 1e-12)
        XCTAssertEqual(MIDITable.value(t.slots[91], position: 1), 100)
        XCTAssertNil(t.slots[1].parameter)
    }

    /// The README: "a learned MIDI controller at 64 or above is on" (toggles).
    func testALearnedToggleIsOnFrom64() {
        for parameter in [ParameterID.freeze, .bypass] {
            var map = MIDIMap.defaults
            map.bind(.init(channel: 0, controller: 20, parameter: parameter))
            let t = map.table(channelFilter: 0)
            defer { t.deallocate() }
            XCTAssertEqual(MIDITable.value(t.slots[20], position: 0), 0, "\(parameter)")
            XCTAssertEqual(MIDITable.value(t.slots[20], position: 63 / 127), 0, "\(parameter) at 63")
            XCTAssertEqual(MIDITable.value(t.slots[20], position: 64 / 127), 1, "\(parameter) at 64")
            XCTAssertEqual(MIDITable.value(t.slots[20], position: 1), 1, "\(parameter) at 127")
        }
    }

    func testLSBPairing() {
        var map = MIDIMap.defaults
        map.bind(.init(channel: 0, controller: 1, parameter: .mix))
        let t = map.table(channelFilter: 0)
        defer { t.deallocate() }
        XCTAssertEqual(t.slots[106].msb, 74, "CC 106 refines the default cutoff CC 74")
        XCTAssertEqual(t.slots[33].msb, 1, "CC n+32 refines CC n for n < 32")
        XCTAssertEqual(t.slots[39].msb, 7, "CC 39 refines the default gain CC 7")
        XCTAssertNil(t.slots[34].parameter, "CC 34 refines CC 2, which is unbound")
        XCTAssertNil(t.slots[103].parameter, "CC 71+32 is not a standard LSB")
    }

    func testBindingRules() {
        var map = MIDIMap.defaults
        map.bind(.init(channel: 2, controller: 74, parameter: .gain))
        XCTAssertEqual(map.bindings.filter { $0.controller == 74 }, [.init(channel: 2, controller: 74, parameter: .gain)])
        XCTAssertNotNil(MIDIMap.problem(.init(channel: 0, controller: 128, parameter: .gain)))
        XCTAssertNotNil(MIDIMap.problem(.init(channel: 17, controller: 1, parameter: .gain)))
        XCTAssertNotNil(MIDIMap.problem(.init(channel: 0, controller: 1, parameter: .room)))
        XCTAssertTrue(map.unbind(controller: 7))
        XCTAssertFalse(map.unbind(controller: 7))
    }

    func testFeedbackValueRoundTrips() {
        let t = MIDIMap.defaults.table(channelFilter: 0)
        defer { t.deallocate() }
        for cc in [7, 71, 74, 91] {
            for v in 0...127 {
                let value = MIDITable.value(t.slots[cc], position: Double(v) / 127)
                XCTAssertEqual(Int(MIDITable.controllerValue(t.slots[cc], value: value)), v)
            }
        }
    }

    // MARK: - The router against a real engine

    private let rate = 48_000.0

    /// Renders `frames` of DC 0.5 through an engine, MIDI `events` (frame, bytes) fed at the start
    /// of the render call holding their frame, in blocks of `block`. Returns the left output
    /// (`out`) and the right (`right`).
    private func render(events: [(Int, [UInt8])], frames: Int, block: Int, channel: Int = 0,
                        map: MIDIMap = .defaults, state: RackState = RackState()) -> (out: [Float], right: [Float], link: MIDILink, engine: Engine) {
        let engine = Engine(sampleRate: rate, maxFrames: block, state: state)
        let link = MIDILink(map: map, channelFilter: channel)
        var out = [Float](repeating: 0, count: frames), right = out
        let dc = [Float](repeating: 0.5, count: block)
        var fb = [UInt8](repeating: 0, count: 3 * 64)
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            _ = link.router.pointee.beginCycle(engine.core, out: &fb, capacity: 64)
            for (f, bytes) in events where f >= done && f < done + n {
                bytes.withUnsafeBufferPointer { link.router.pointee.receive($0.baseAddress!, count: bytes.count, frame: f - done, core: engine.core) }
            }
            out.withUnsafeMutableBufferPointer { o in right.withUnsafeMutableBufferPointer { r in
                _ = engine.render(frames: n, inputLeft: dc, inputRight: dc, outputLeft: o.baseAddress! + done,
                                  outputRight: r.baseAddress! + done)
            }}
            done += n
        }
        return (out, right, link, engine)
    }

    private var dryState: RackState {
        var s = RackState()
        s[.mix] = 0
        s[.gain] = -60
        return s
    }

    func testCCLandsOnItsFrameWhateverTheBlockSize() {
        // Gain −60 dB → +12 dB (CC 7 = 127) written at frame 1000: output stays at the −60 dB
        // level through frame 1000 (the ramp starts there) and rises from frame 1001.
        let events = [(1000, [UInt8]([0xB0, 7, 127]))]
        let a = render(events: events, frames: 4096, block: 64, state: dryState)
        let b = render(events: events, frames: 4096, block: 4096, state: dryState)
        XCTAssertEqual(a.out, b.out, "the output does not depend on the block size (left)")
        XCTAssertEqual(a.right, b.right, "the output does not depend on the block size (right)")
        let quiet = a.out[999]
        XCTAssertEqual(a.out[1000], quiet)
        XCTAssertGreaterThan(a.out[1001], quiet * 1.001)
        // After the default ramp (20 ms = 960 frames) the gain is +12 dB.
        XCTAssertEqual(Double(a.out[3000]), 0.5 * RackMath.gain(decibels: 12), accuracy: 1e-4)
        XCTAssertEqual(a.engine.targets[.gain], 12)
    }

    func testFourteenBitAndChannelFilter() {
        // CC 74 = 64 then CC 106 = 0: 64·128/16383 of the way up the log taper.
        let r = render(events: [(10, [0xB0, 74, 64]), (20, [0xB0, 106, 0])], frames: 256, block: 256)
        let expected = 12 * pow(20_000.0 / 12, Double(64 * 128) / 16_383)
        XCTAssertEqual(r.engine.targets[.cutoff], expected, accuracy: 1e-6)
        // An LSB alone is ignored; a filtered channel is ignored.
        let lone = render(events: [(10, [0xB0, 106, 100])], frames: 256, block: 256)
        XCTAssertEqual(lone.engine.targets[.cutoff], 20_000)
        let filtered = render(events: [(10, [0xB1, 7, 0]), (20, [0xB2, 91, 0])], frames: 256, block: 256, channel: 3)
        XCTAssertEqual(filtered.engine.targets[.gain], 0, "channel 2 is filtered out")
        XCTAssertEqual(filtered.engine.targets[.mix], 0, "channel 3 is obeyed")
    }

    func testProgramChangeGoesToTheControlThreadAndLearnSeesTheController() {
        let r = render(events: [(5, [0xC0, 2]), (6, [0xB4, 20, 1])], frames: 128, block: 128)
        XCTAssertEqual(r.link.takeProgramChanges(), [2])
        XCTAssertEqual(r.link.takeMovedController()?.controller, 20)
        XCTAssertEqual(r.link.takeMovedController()?.controller, nil, "taken once")
        let pair = render(events: [(5, [0xB0, 74, 1, 106, 2])], frames: 128, block: 128)
        XCTAssertEqual(pair.link.takeMovedController()?.controller, 74, "a 14-bit knob is learnt by its MSB")
    }

    /// The render side of feedback only moves what the control side queued (`sendFeedback`):
    /// a MIDI change queues nothing, an unbound parameter nothing; at most the output's
    /// capacity a cycle, the rest the next cycle, in order, none lost.
    func testTheStageSendsWhatTheControlSideQueued() {
        let engine = Engine(sampleRate: rate, maxFrames: 256)
        var map = MIDIMap.defaults
        map.bind(.init(channel: 0, controller: 39, parameter: .resonance))   // an LSB number bound itself
        let link = MIDILink(map: map, channelFilter: 0)
        var l = [Float](repeating: 0, count: 256), r = l
        func cycle(_ midi: [UInt8] = [], capacity: Int = 64) -> [UInt8] {
            var fb = [UInt8](repeating: 0, count: 3 * capacity)
            let n = link.router.pointee.beginCycle(engine.core, out: &fb, capacity: capacity)
            if !midi.isEmpty { midi.withUnsafeBufferPointer { link.router.pointee.receive($0.baseAddress!, count: midi.count, frame: 0, core: engine.core) } }
            _ = engine.render(frames: 256, inputLeft: nil, inputRight: nil, outputLeft: &l, outputRight: &r)
            return Array(fb[0..<(3 * n)])
        }
        XCTAssertEqual(cycle([0xB0, 91, 10]), [], "a MIDI change queues nothing")
        XCTAssertEqual(cycle(), [], "not the cycle after either")
        _ = engine.post(EngineEvent(.now, .set(.gain, 12, ramp: .standard)))
        XCTAssertEqual(cycle(), [], "the render side computes no feedback of its own")
        link.sendFeedback(.gain, value: 12)
        link.sendFeedback(.decay, value: 2)
        XCTAssertEqual(cycle(), [0xB0, 7, 127], "CC 7 for gain; decay is bound to no controller")
        link.sendFeedback(.resonance, value: 20)
        XCTAssertEqual(cycle(), [0xB0, 39, 127, 0xB0, 71, 127], "every controller bound to it, in controller order")
        link.sendFeedback(.cutoff, value: 20_000)
        XCTAssertEqual(cycle(), [0xB0, 74, 127], "not CC 106, the LSB of cutoff's 14-bit pair")
        for i in 0..<5 { link.sendFeedback(.mix, value: Double(i) / 127 * 100) }
        XCTAssertEqual(cycle(capacity: 2), [0xB0, 91, 0, 0xB0, 91, 1])
        XCTAssertEqual(cycle(capacity: 2), [0xB0, 91, 2, 0xB0, 91, 3], "the rest wait, in order")
        XCTAssertEqual(cycle(capacity: 2), [0xB0, 91, 4])
        XCTAssertEqual(link.feedbackDropped, 0)
    }

    func testMapSwapThroughTheMailbox() {
        let engine = Engine(sampleRate: rate, maxFrames: 64)
        let link = MIDILink(map: .defaults, channelFilter: 0)
        var fb = [UInt8](repeating: 0, count: 3 * 64)
        var l = [Float](repeating: 0, count: 64), r = l
        func cycle(_ midi: [UInt8]) {
            _ = link.router.pointee.beginCycle(engine.core, out: &fb, capacity: 64)
            midi.withUnsafeBufferPointer { link.router.pointee.receive($0.baseAddress!, count: midi.count, frame: 0, core: engine.core) }
            _ = engine.render(frames: 64, inputLeft: nil, inputRight: nil, outputLeft: &l, outputRight: &r)
        }
        for i in 0..<50 {   // many swaps: each old table is freed by the control side
            var m = MIDIMap.defaults
            m.bind(.init(channel: 0, controller: 20, parameter: i % 2 == 0 ? .mix : .resonance))
            link.set(m)
            // A map is in force from the first cycle after the control thread's next pass.
            link.poll()
            cycle([])
            link.poll()
            XCTAssertFalse(link.isPending)
            cycle([0xB0, 20, UInt8(i)])
            XCTAssertEqual(engine.targets[i % 2 == 0 ? .mix : .resonance], i % 2 == 0 ? Double(i) / 127 * 100 : -20 + 40 * Double(i) / 127,
                           accuracy: 1e-9, "map \(i)")
        }
    }
}
