import Foundation
import XCTest
import RackDSP
@testable import RackEngine

/// Renders `input` (stereo, same signal both sides) through a fresh engine in blocks of
/// `block` frames, scheduling `events` the way the offline driver does.
func renderEngine(input: [Float], block: Int, state: RackState = RackState(), events: [EngineEvent] = [],
                  rate: Double = 48_000) -> (left: [Float], right: [Float]) {
    let engine = Engine(sampleRate: rate, maxFrames: block, state: state)
    var outL = [Float](repeating: 0, count: input.count), outR = outL
    var next = 0
    var done = 0
    let sorted = events.sorted { $0.time.sample! < $1.time.sample! }
    input.withUnsafeBufferPointer { inp in
        outL.withUnsafeMutableBufferPointer { l in outR.withUnsafeMutableBufferPointer { r in
            while done < input.count {
                let n = min(block, input.count - done)
                while next < sorted.count && sorted[next].time.isDue(at: Int64(done + n + engine.lookaheadFrames) - 1) {
                    engine.schedule(sorted[next]); next += 1
                }
                let status = engine.render(frames: n, inputLeft: inp.baseAddress! + done, inputRight: inp.baseAddress! + done,
                                           outputLeft: l.baseAddress! + done, outputRight: r.baseAddress! + done)
                XCTAssertEqual(status, .success)
                done += n
            }
        }}
    }
    return (outL, outR)
}

/// Deterministic white noise (a linear congruential generator: no global RNG state).
func noise(_ count: Int, seed: UInt64 = 1) -> [Float] {
    var x = seed
    return (0..<count).map { _ in
        x = x &* 6364136223846793005 &+ 1442695040888963407
        return Float(Int64(bitPattern: x >> 11) % 1_000_000) / 2_000_000
    }
}

final class EngineTests: XCTestCase {
    let rate = 48_000.0

    func event(_ seconds: Double, _ p: ParameterID, _ v: Double, ramp: Double = 0) -> EngineEvent {
        EngineEvent(sampleTime: Int64(seconds * rate), .set(p, v, ramp: RampLength(frames: Int64(ramp * rate))))
    }

    func testOutputDoesNotDependOnBlockSize() {
        let input = noise(Int(rate * 1.5))
        var warm = RackState()
        warm[.cutoff] = 384; warm[.resonance] = -3
        let events = [
            event(0.1, .cutoff, 300, ramp: 0.4),
            event(0.2, .resonance, 12, ramp: 0.05),
            event(0.25, .mix, 90),
            event(0.3, .room, Double(Room.plate.rawValue)),
            event(0.5, .gain, -12, ramp: 0.3),
            event(0.61234, .cutoff, 9000),
        ] + warm.events(at: .at(Int64(0.9 * rate)), ramp: .frames(Int64(0.2 * rate)))
            + [event(1.2, .room, Double(Room.cathedral.rawValue), ramp: 0.15)]
        let reference = renderEngine(input: input, block: 64, events: events)
        for block in [333, 4096, 1] where block != 1 || input.count <= 80_000 {
            let other = renderEngine(input: input, block: block, events: events)
            XCTAssertTrue(other.left == reference.left && other.right == reference.right, "block \(block) differs from block 64")
        }
        XCTAssertTrue(reference.left.allSatisfy(\.isFinite))
    }

    func testTimeInvariance() {
        // Constant settings: an impulse later gives the same response, later.
        var state = RackState()
        state[.cutoff] = 1000; state[.resonance] = 6; state[.mix] = 100
        var a = [Float](repeating: 0, count: 24_000), b = a
        a[0] = 1
        b[1000] = 1
        let ra = renderEngine(input: a, block: 256, state: state)
        let rb = renderEngine(input: b, block: 256, state: state)
        XCTAssertEqual(Array(ra.left[0..<23_000]), Array(rb.left[1000..<24_000]))
        XCTAssertEqual(Array(ra.right[0..<23_000]), Array(rb.right[1000..<24_000]))
    }

    /// A constant input through a neutral graph (dry, filter wide open): what comes out is the
    /// gain curve itself.
    func gainCurve(events: [EngineEvent], frames: Int) -> [Float] {
        var state = RackState()
        state[.mix] = 0
        let input = [Float](repeating: 0.5, count: frames)
        return renderEngine(input: input, block: 256, state: state, events: events).left.map { $0 / 0.5 }
    }

    func testAnEventAppliesAtItsSampleAndAnImmediateSetStillRamps() {
        let at = 4801
        let out = gainCurve(events: [EngineEvent(sampleTime: Int64(at), .set(.gain, -60, ramp: .standard))], frames: 9600)
        let steady = out[at - 10]
        XCTAssertEqual(steady, 1, accuracy: 1e-4)
        XCTAssertEqual(out[at], steady, "nothing moves before the event's sample")
        XCTAssertLessThan(out[at + 1], steady, "the ramp starts right after the event")
        // The default ramp is 20 ms: no step larger than the steepest point of a 60 dB fall
        // over 960 samples (3·ln10/960 per sample at the top), plus interpolation slack.
        var maxStep: Float = 0
        for i in (at + 1)..<9600 { maxStep = max(maxStep, abs(out[i] - out[i - 1])) }
        XCTAssertLessThan(maxStep, Float(3 * log(10.0) / 960 * 1.05))
        // It arrives exactly when the default ramp says, and stays.
        let end = at + Int(0.02 * rate)
        XCTAssertEqual(out[end + 5], Float(pow(10, -60.0 / 20)), accuracy: 1e-6)
        XCTAssertGreaterThan(out[end - 100], out[end + 5])
    }

    func testExplicitRampTimeAndLinearDecibelShape() {
        let out = gainCurve(events: [event(0.1, .gain, -24, ramp: 0.5)], frames: Int(rate * 0.8))
        // Linear in dB: halfway through, the gain is −12 dB.
        let mid = Int(0.35 * rate)
        XCTAssertEqual(20 * log10(Double(out[mid])), -12, accuracy: 0.05)
        XCTAssertEqual(20 * log10(Double(out[Int(0.6 * rate) + 10])), -24, accuracy: 0.01)
        XCTAssertEqual(20 * log10(Double(out[Int(0.6 * rate) - 480])), -24 * 0.98, accuracy: 0.05)
    }

    func testCutoffRampIsExponential() {
        let engine = Engine(sampleRate: rate, maxFrames: 512)
        engine.schedule(event(0, .cutoff, 100, ramp: 1))
        var l = [Float](repeating: 0, count: 512), r = l
        var probe: [Double] = []
        for _ in 0..<Int(rate / 512) {
            _ = engine.render(frames: 512, inputLeft: nil, inputRight: nil, outputLeft: &l, outputRight: &r)
            probe.append(engine.core.pointee.currentValue(.cutoff))
        }
        // 20000 → 100 Hz over 1 s with equal ratios: f(t) = 20000·(100/20000)^t.
        for (i, value) in probe.enumerated() {
            let t = Double((i + 1) * 512) / rate
            XCTAssertEqual(value, 20_000 * pow(100.0 / 20_000, min(t, 1)), accuracy: value * 1e-9)
        }
    }

    func testPostedEventsReachTheRenderThroughTheQueue() {
        let engine = Engine(sampleRate: rate, maxFrames: 256)
        XCTAssertTrue(engine.post(EngineEvent(.now, .set(.mix, 80, ramp: .standard))))
        var l = [Float](repeating: 0, count: 256), r = l
        _ = engine.render(frames: 256, inputLeft: nil, inputRight: nil, outputLeft: &l, outputRight: &r)
        XCTAssertEqual(engine.targets[.mix], 80)
    }

    func testPendingEventsApplyInTimeThenArrivalOrder() {
        // 2000 events at random future samples, several per sample: the render applies them in
        // time order, and events for the same sample in the order they were scheduled.
        let engine = Engine(sampleRate: rate, maxFrames: 512)
        var rng = SoakRandom(seed: 3)
        var scheduled: [EngineEvent] = []
        for i in 0..<2000 {
            let e = EngineEvent(sampleTime: Int64(rng.next() % 20_000), .set(.mix, Double(i % 100), ramp: .standard))
            scheduled.append(e)
            engine.schedule(e)
        }
        var l = [Float](repeating: 0, count: 512), r = l
        var applied: [AppliedEvent] = []
        for _ in 0..<40 {
            _ = engine.render(frames: 512, inputLeft: nil, inputRight: nil, outputLeft: &l, outputRight: &r)
            while let n = engine.nextNotice() {
                if case let .applied(e) = n { applied.append(e) }
            }
        }
        let expected = scheduled.enumerated().sorted { ($0.element.time.sample!, $0.offset) < ($1.element.time.sample!, $1.offset) }
        XCTAssertEqual(applied.map(\.action), expected.map(\.element.action))
        XCTAssertEqual(applied.map(\.sampleTime), expected.map { $0.element.time.sample! })
    }

    func testRenderRejectsTooManyFrames() {
        let engine = Engine(sampleRate: rate, maxFrames: 64)
        var l = [Float](repeating: 0, count: 128), r = l
        XCTAssertEqual(engine.render(frames: 128, inputLeft: nil, inputRight: nil, outputLeft: &l, outputRight: &r), .error)
        XCTAssertEqual(engine.render(frames: 64, inputLeft: nil, inputRight: nil, outputLeft: &l, outputRight: &r), .insufficientDataFromInputNode)
    }

    func testRoomChangeDoesNotClick() {
        // A steady low tone, fully wet; the room changes mid-way: no sample-to-sample jump
        // bigger than the largest one of either room's steady sound (before the change and
        // after the crossfade). (smallRoom runs here at mediumHall's decay, where its lines are
        // modulated: its steady level at 220 Hz is not mediumHall's.)
        var state = RackState()
        state[.mix] = 100
        let n = Int(rate * 2)
        let input = (0..<n).map { Float(0.5 * sin(2 * Double.pi * 220 * Double($0) / rate)) }
        let out = renderEngine(input: input, block: 512, state: state,
                               events: [event(1.0, .room, Double(Room.smallRoom.rawValue))]).left
        func maxStep(_ r: Range<Int>) -> Float { r.dropFirst().map { abs(out[$0] - out[$0 - 1]) }.max()! }
        let before = maxStep(Int(0.6 * rate)..<Int(rate))
        let during = maxStep(Int(rate)..<Int(1.3 * rate))
        let after = maxStep(Int(1.5 * rate)..<n)
        XCTAssertLessThan(during, max(before, after) * 1.5, "before \(before), after \(after)")
    }
}
