import Foundation
import XCTest
import RackDSP
@testable import RackEngine

/// The reverb's shaping controls and bypass as parameters of the engine: the T30 follows
/// `decay`, renders do not depend on the block size with every new control automated, ramps
/// do not splatter, bypass passes the input exactly once settled and lets the tail ring out.
final class ShapingParameterTests: XCTestCase {
    let rate = 48_000.0

    func event(_ seconds: Double, _ p: ParameterID, _ v: Double, ramp: Double = 0) -> EngineEvent {
        EngineEvent(sampleTime: Int64(seconds * rate), .set(p, v, ramp: RampLength(frames: Int64(ramp * rate))))
    }

    /// T30 (s) of a response: Schroeder's backward integral of L² + R², the line through
    /// −5 and −35 dB, extrapolated to 60 dB.
    func t30(_ left: [Float], _ right: [Float], from start: Int) -> Double {
        var energy = [Double](repeating: 0, count: left.count - start)
        var sum = 0.0
        for i in stride(from: left.count - 1, through: start, by: -1) {
            sum += Double(left[i]) * Double(left[i]) + Double(right[i]) * Double(right[i])
            energy[i - start] = sum
        }
        let total = energy[0]
        func crossing(_ db: Double) -> Double {
            let level = total * pow(10, db / 10)
            let i = energy.firstIndex { $0 < level } ?? energy.count
            return Double(i) / rate
        }
        return 2 * (crossing(-35) - crossing(-5))
    }

    func testTheImpulseResponsesT30FollowsDecay() {
        for decay in [1.0, 3.0] {
            var state = RackState()
            state[.mix] = 100
            let frames = Int(rate * decay * 1.6) + 4800
            var input = [Float](repeating: 0, count: frames)
            input[0] = 1
            let out = renderEngine(input: input, block: 512, state: state, events: [event(0, .decay, decay)])
            let measured = t30(out.left, out.right, from: 0)
            print("decay \(decay) s: T30 \(String(format: "%.3f", measured)) s")
            XCTAssertEqual(measured, decay, accuracy: 0.15 * decay, "decay \(decay) s")
        }
    }

    /// Every new control automated (ramps, jumps, toggles on and off), with a room change among
    /// them: blocks of 64, 333 and 4096 give the same samples.
    func testEveryNewControlAutomatedDoesNotDependOnBlockSize() {
        let input = noise(Int(rate * 1.6))
        let events = [
            event(0.05, .decay, 6, ramp: 0.3), event(0.1, .predelay, 80, ramp: 0.2),
            event(0.15, .damping, 1500, ramp: 0.25), event(0.2, .lowcut, 300, ramp: 0.1),
            event(0.25, .highcut, 4000, ramp: 0.1), event(0.3, .width, 150, ramp: 0.2),
            event(0.52, .freeze, 1), event(0.71, .freeze, 0),
            event(0.8, .room, Double(Room.plate.rawValue)), event(0.8, .decay, 0.4),
            event(0.9, .bypass, 1, ramp: 0.05), event(1.1, .bypass, 0),
            event(1.2, .width, 0, ramp: 0.1), event(1.25, .lowcut, 10),
        ]
        let reference = renderEngine(input: input, block: 64, events: events)
        for block in [333, 4096] {
            let other = renderEngine(input: input, block: block, events: events)
            XCTAssertTrue(other.left == reference.left && other.right == reference.right, "block \(block) differs from block 64")
        }
        XCTAssertTrue(reference.left.allSatisfy(\.isFinite) && reference.right.allSatisfy(\.isFinite))
    }

    /// With no new control moved, the shaping controls at the room's values leave the reverb
    /// as it was: the same render as the state with no shape given (every room at its own
    /// values), room changes included.
    func testTheRoomsOwnValuesAreNeverSentToTheReverb() {
        let t = Int64(0.1 * rate)
        let events = [EngineEvent(sampleTime: t, .set(.room, Double(Room.cathedral.rawValue), ramp: .standard))]
            + RoomRule.implied(by: .cathedral).map { EngineEvent(sampleTime: t, .set($0.0, $0.1, ramp: .standard)) }
        let engine = Engine(sampleRate: rate, maxFrames: 512, state: RackState())
        for e in events { engine.schedule(e) }
        var left = [Float](repeating: 0, count: 512), right = left
        for _ in 0..<40 { _ = engine.render(frames: 512, inputLeft: nil, inputRight: nil, outputLeft: &left, outputRight: &right) }
        XCTAssertEqual(engine.core.pointee.room, .cathedral)
        XCTAssertEqual(engine.core.pointee.targets.reverbShape, Room.cathedral.shape)
        XCTAssertFalse(engine.core.pointee.hasSentShape, "a room at its own values: the reverb is never given a shape")
        XCTAssertFalse(engine.core.pointee.isRamping, "the implied values jumped with the room")
    }

    /// Energy above 8 kHz in the worst 20 ms window of the second after `change`, for a 1 kHz
    /// sine at mix 100 % (dB, relative), from the default state with `from` set.
    func worstSplatter(_ id: ParameterID, to value: Double, ramp: Double, from: (ParameterID, Double)? = nil) -> Double {
        var state = RackState()
        state[.mix] = 100
        if let (startID, startValue) = from { state[startID] = startValue }
        let frames = Int(rate * 1.5)
        let input = (0..<frames).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / rate)) }
        let out = renderEngine(input: input, block: 256, state: state, events: [event(0.5, id, value, ramp: ramp)])
        var highPass = (0..<4).map { _ in Biquad.highPass(cornerHz: 8000, rate: rate) }
        let filtered = out.left.map { x in highPass.indices.reduce(Double(x)) { y, k in highPass[k].process(y) } }
        let window = Int(0.02 * rate)
        var worst = 0.0
        for start in stride(from: Int(0.5 * rate), to: Int(1.5 * rate) - window, by: window / 2) {
            worst = max(worst, filtered[start..<(start + window)].reduce(0) { $0 + $1 * $1 })
        }
        return 10 * log10(worst + 1e-30)
    }

    /// The default ramp of each new continuous control against a 200 ms ramp of the same
    /// change, and against the 1 kHz sine itself (its energy in a 20 ms window is +20.8 dB on
    /// this scale): the splatter stays 60 dB below the sine. The shaping controls glide
    /// (raised-cosine ramps, followed per sample: `ReverbShapeGlide`; the cuts' coefficients
    /// per sample, `CutSection`) and `predelay` crossfades its moves (`ReverbPredelay`), so the
    /// default ramp of each splatters at most `glideExcessDecibels` more than its 200 ms ramp
    /// (when the shape stepped per 32-sample tick: `decay` → 8 s +12.5 dB, → 0.3 s +15.8,
    /// `damping` +12.9, `width` +20.0; when the cuts' coefficients stepped per 8-sample group
    /// and their switching fade was linear: `lowcut` → 600 Hz −93.7 dB re the sine against
    /// −105.6 at 200 ms (+11.9), `highcut` → 1500 Hz −87.1/−98.0 (+10.9), back to 20 kHz
    /// −80.1/−97.2 (+17.1), `lowcut` back to 10 Hz −90.9/−105.4 (+14.5); `predelay` → 120 ms
    /// −111.6/−111.6 then as now. Now: −111.6/−111.6, −114.3/−111.7, −112.5/−121.5,
    /// −111.4/−111.6). −111.6 dB, most rows' figure, is the ring of the sine's abrupt start in
    /// the reverb (the first window after the change is the worst); a cut that switches off
    /// uncovers it: `highcut` back to 20 kHz opens 180 ms sooner at the default ramp than at
    /// 200 ms, where that ring is 9 dB louder, and is then no louder than the output without
    /// the cut (−111.6 dB), so a cut switching off is held to the higher of its 200 ms ramp
    /// and the output without the cut. (With the sine faded in over 0.2 s, no ring, the cuts'
    /// and `decay`'s 200 ms ramps are at −127 to −147 dB and their default ramps 14–26 dB
    /// above: a move 10 times faster spreads further; the bound holds the glides to the level
    /// the ring sets.)
    /// `highcut` from its default (20 kHz, off) is the wet low-pass's first engage, and back to
    /// 20 kHz its switching off; `lowcut` back to 10 Hz likewise. (Before `CutSection`
    /// crossfaded its switching and moved to the state-variable form: the first engage −42.7 dB
    /// re the sine, −44.1 dB at 200 ms; back to 20 kHz −50.7 and −61.5 dB. When written:
    /// −82.7/−92.6 and −74.7/−90.9 dB.) `decay` to 0.3 s crosses the default room's switching
    /// decay (0.55 s): the network crossfades to its short form (`ReverbShortForm.swift`).
    /// How much more a gliding control's default ramp may splatter than its 200 ms ramp (dB).
    let glideExcessDecibels = 6.0

    func testRampsOfTheNewControlsDoNotSplatter() {
        let sineWindowDecibels = 10 * log10(0.125 * 0.02 * rate)
        let changes: [(ParameterID, Double, (ParameterID, Double)?)] = [
            (.decay, 8, nil), (.decay, 0.3, nil), (.damping, 800, nil), (.lowcut, 600, nil), (.highcut, 1500, nil),
            (.highcut, 20_000, (.highcut, 1500)), (.lowcut, 10, (.lowcut, 600)),
            (.width, 0, nil), (.predelay, 120, nil), (.bypass, 1, nil),
        ]
        for (id, value, from) in changes {
            let jump = worstSplatter(id, to: value, ramp: 0, from: from)
            let reference = worstSplatter(id, to: value, ramp: 0.2, from: from)
            let cutOff = from.map { _ in worstSplatter(id, to: value, ramp: 0, from: (id, value)) }
            let name = Parameters[id].name + (from.map { " from \($0.1)" } ?? "")
            print("\(name) → \(value): worst 20 ms above 8 kHz, default ramp \(String(format: "%.1f", jump - sineWindowDecibels)) dB, 200 ms ramp \(String(format: "%.1f", reference - sineWindowDecibels)) dB\(cutOff.map { String(format: ", without the cut %.1f dB", $0 - sineWindowDecibels) } ?? "") (re the sine)")
            XCTAssertLessThanOrEqual(jump, sineWindowDecibels - 60, "\(name) → \(value) splatters")
            XCTAssertLessThanOrEqual(reference, sineWindowDecibels - 75, "\(name) → \(value) splatters at 200 ms")
            if id != .bypass {
                let floor = max(reference, cutOff ?? reference)
                XCTAssertLessThanOrEqual(jump, floor + glideExcessDecibels, "\(name) → \(value): the default ramp steps")
            }
        }
    }

    func testBypassPassesTheInputExactlyOnceSettledAndTheTailRingsOut() {
        var state = RackState()
        state[.mix] = 60
        state[.cutoff] = 800
        let frames = Int(rate * 6)
        let burst = Int(0.3 * rate)
        var input = noise(frames, seed: 7)
        for i in burst..<Int(1.0 * rate) { input[i] = 0 }            // a burst, then quiet…
        for i in Int(1.0 * rate)..<frames { input[i] *= 0.5 }        // …then sound again
        let switchAt = 0.35
        let out = renderEngine(input: input, block: 256, state: state, events: [event(switchAt, .bypass, 1)])
        // The tail of the burst rings out after the switch (spill-over), though its input is gone.
        let tail = out.left[Int((switchAt + 0.1) * rate)..<Int((switchAt + 0.3) * rate)]
        XCTAssertGreaterThan(tail.map { abs($0) }.max()!, 1e-3, "the reverb's tail rings out behind the bypass")
        // No click: the crossfade's largest step is no larger than the signal's own.
        let around = Int(switchAt * rate)
        let steps = (around - 480..<around + 1440).map { abs(out.left[$0] - out.left[$0 - 1]) }
        let ownSteps = (burst - 2400..<burst - 480).map { abs(out.left[$0] - out.left[$0 - 1]) }
        XCTAssertLessThanOrEqual(steps.max()!, ownSteps.max()! * 1.5)
        // Settled (the tail below −120 dBFS): the output is the input, bit for bit.
        let settled = Int(5 * rate)
        XCTAssertTrue(out.left[settled...].elementsEqual(input[settled...]) && out.right[settled...].elementsEqual(input[settled...]),
                      "bypassed and settled, the output is the input")
    }

    func testTheRoomRuleKeepsWhatTheGroupSets() {
        let expanded = RoomRule.expand([(.room, Double(Room.plate.rawValue)), (.decay, 7)])
        let values = Dictionary(expanded.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(values[.decay], 7, "the group set decay: the room leaves it")
        XCTAssertEqual(values[.damping], Room.plate.shape.dampingHz, "the room brings its damping")
        XCTAssertEqual(expanded.filter { $0.0 == .decay }.count, 1)
        let alone = Dictionary(RoomRule.expand([(.room, Double(Room.cathedral.rawValue))]).map { ($0.0, $0.1) },
                               uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(alone[.decay], Room.cathedral.shape.decaySeconds)
        XCTAssertEqual(Set(alone.keys), Set([.room] + ReverbControls.followingRoom))
    }

    func testRackStateReverbShapeConvertsUnits() {
        var state = RackState()
        state[.predelay] = 40
        state[.width] = 120
        state[.freeze] = 1
        let shape = state.reverbShape
        XCTAssertEqual(shape.predelaySeconds, 0.04, accuracy: 1e-12)
        XCTAssertEqual(shape.width, 1.2, accuracy: 1e-12)
        XCTAssertTrue(shape.freeze)
        XCTAssertEqual(RackState().reverbShape, Room.default.shape, "the defaults are the default room's values")
    }
}

/// A second-order Butterworth section (RBJ cookbook), in Double: the test's own measuring filter.
struct Biquad {
    var b0, b1, b2, a1, a2: Double
    var z1 = 0.0, z2 = 0.0

    static func highPass(cornerHz: Double, rate: Double) -> Biquad {
        let w = 2 * Double.pi * cornerHz / rate, alpha = sin(w) / 2.0.squareRoot()
        let a0 = 1 + alpha
        return Biquad(b0: (1 + cos(w)) / 2 / a0, b1: -(1 + cos(w)) / a0, b2: (1 + cos(w)) / 2 / a0,
                      a1: -2 * cos(w) / a0, a2: (1 - alpha) / a0)
    }

    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }
}
