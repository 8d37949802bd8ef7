import XCTest
@testable import RackDSP

/// Quality held across the `decay` range: smallRoom and cathedral at `decay` 0.3 s
/// and 20 s (impulse responses, mono impulse into both inputs, 100 % wet, 48 kHz, decay + 0.3 s
/// long), against the goals every room meets at its own values (`ReverbQualityTests`), with the
/// measures of `ReverbMeasures.swift`. The README's "Quality across the decay range" prints what
/// these measure.
///
/// History: cathedral at 20 s mixed at 0.377 s (0.349 s with the allpass read the rotation
/// replaced, 0.362 s unmodulated) against 0.212 s at its own 5 s: its echo density hovered at
/// 0.86…0.93 from 0.2 to 0.4 s at every decay, so the first time it stayed above 0.9 was
/// decided by small differences (the modulation's noise seed alone moved it between 0.212 and
/// 0.376 s), and it was left out of the goal. A loop that loses under 1 dB a pass returns each
/// line's first pass as a copy of the input burst; the lines' second diffusers (an allpass in
/// every loop at decays far beyond the room's own, `ReverbModulation`) smear those returns:
/// it now mixes at 0.168 s (0.140 s at 44.1 kHz, 0.141 s at 96 kHz) with its density ≥ 0.95
/// from 0.2 to 0.6 s, and the goal holds for all four responses. Not asserted: cathedral at its
/// own 5 s and 44.1 kHz mixes at 0.302 s (the room's own network, unchanged; the room goals of
/// `ReverbQualityTests` are measured at 48 kHz).
final class ReverbDecayQualityTests: XCTestCase {
    typealias IRA = ImpulseResponseAnalysis
    static let fs = 48_000.0

    struct Response {
        let room: Room
        let decaySeconds: Double
        let left: [Float]
        let right: [Float]
        var name: String { "\(room.name) at decay \(decaySeconds) s" }
    }

    /// The four impulse responses, rendered once.
    static let responses: [Response] = [Room.smallRoom, .cathedral].flatMap { room in
        [0.3, 20].map { decay in
            var shape = room.shape
            shape.decaySeconds = decay
            let r = ReverbShapeTests.response(room, rate: fs, shape: shape, seconds: decay + 0.3)
            return Response(room: room, decaySeconds: decay, left: r.left, right: r.right)
        }
    }

    /// Mixing time within the goal of the room's own length class (a property of its size:
    /// changing the decay must not make it mix later); at decays of 1 s and more, echo density
    /// at 100 ms ≥ 0.5.
    func testMixingTimeStaysWithinTheRoomsOwnGoal() throws {
        for r in Self.responses {
            let density = IRA.echoDensity(left: r.left, right: r.right, sampleRate: Self.fs)
            let tmix = try XCTUnwrap(IRA.mixingTime(density: density), "\(r.name): never mixed")
            let limit = ReverbQualityTests.mixingTimeLimit(r.room.targetDecaySeconds)
            XCTAssertLessThanOrEqual(tmix, limit, "\(r.name): tmix \(tmix) s")
            if r.decaySeconds >= 1 {
                XCTAssertGreaterThanOrEqual(IRA.density(density, at: 0.1), 0.5, r.name)
            }
        }
    }

    /// Cathedral at 20 s mixes within its goal at 44.1, 48 and 96 kHz, and not by a hair: from
    /// 0.2 to 0.6 s after the first arrival its echo density stays ≥ `densityFloor` (0.93; it
    /// hovered at 0.86…0.93 there before the second diffusers, 0.76 at its lowest). Measured:
    /// mixing time 140/168/141 ms, lowest density 0.951/0.955/0.959 (44.1/48/96 kHz).
    func testCathedralAtLongDecaysMixesWithMargin() throws {
        let densityFloor = 0.93
        for rate in [44_100.0, 48_000, 96_000] {
            var shape = Room.cathedral.shape
            shape.decaySeconds = 20
            let r = ReverbShapeTests.response(.cathedral, rate: rate, shape: shape, seconds: 1.5)
            let density = IRA.echoDensity(left: r.left, right: r.right, sampleRate: rate)
            let tmix = try XCTUnwrap(IRA.mixingTime(density: density), "cathedral at \(rate) Hz: never mixed")
            let limit = ReverbQualityTests.mixingTimeLimit(Room.cathedral.targetDecaySeconds)
            XCTAssertLessThanOrEqual(tmix, limit, "cathedral at 20 s, \(rate) Hz: tmix \(tmix) s")
            let window = stride(from: 0.2, through: 0.6, by: IRA.echoDensityStepSeconds)
            let lowest = window.map { IRA.density(density, at: $0) }.min() ?? 0
            XCTAssertGreaterThanOrEqual(lowest, densityFloor, "cathedral at 20 s, \(rate) Hz: density 0.2…0.6 s")
        }
    }

    /// At 20 s, in both rooms, the tail rings no more than noise with its envelope (≤ +3 dB over
    /// 50 Hz…10 kHz) and nothing in it rings above 2 kHz (≤ +3 dB over 2…10 kHz). Measured
    /// (with the second diffusers): smallRoom +0.6 dB at 1.9 kHz and +0.2 dB (2…10 kHz),
    /// cathedral +0.8 and +2.2 dB (at 44.1 and 96 kHz, not asserted: smallRoom +0.7/+0.7 and
    /// +1.6/+1.6 dB, cathedral +1.2/+1.3 and +0.6/−0.0 dB; before them smallRoom +0.9/+0.5,
    /// cathedral +0.3/+0.6 dB at 48 kHz). Where a
    /// small network's long tail turns metallic: unmodulated, smallRoom rang +10.0 dB at 7.6 kHz;
    /// with the modulated allpass read that the rotation replaced, +7.0 dB at 880 Hz and +3.9 dB
    /// at 8.4 kHz (both fail here).
    func testLongDecaysDoNotRingMetallic() {
        for r in Self.responses where r.decaySeconds == 20 {
            let high = IRA.ringing(left: r.left, right: r.right, sampleRate: Self.fs, band: 2_000...10_000)
            XCTAssertLessThanOrEqual(high.tail - high.reference, 3,
                                     "\(r.name): \(high.tail) dB at \(high.hertz) Hz, noise \(high.reference) dB")
            let all = IRA.ringing(left: r.left, right: r.right, sampleRate: Self.fs)
            XCTAssertLessThanOrEqual(all.tail - all.reference, 3,
                                     "\(r.name): \(all.tail) dB at \(all.hertz) Hz, noise \(all.reference) dB")
        }
    }

    /// At 0.3 s, in both rooms, the tail rings no more than noise with its envelope: ≤ +3 dB over
    /// 50 Hz…10 kHz and over 2…10 kHz (`ReverbQualityTests.testNoRoomRings`' goal). Cathedral's
    /// own loops (0.29 s on average) are as long as the decay (+16.6 dB at 568 Hz when they ran
    /// it); below `ReverbCoefficients.shortFormBelowSeconds` its short form runs instead.
    func testShortDecaysDoNotRing() {
        for r in Self.responses where r.decaySeconds == 0.3 {
            let all = IRA.ringing(left: r.left, right: r.right, sampleRate: Self.fs)
            XCTAssertLessThanOrEqual(all.tail - all.reference, 3,
                                     "\(r.name): \(all.tail) dB at \(all.hertz) Hz, noise \(all.reference) dB")
            let high = IRA.ringing(left: r.left, right: r.right, sampleRate: Self.fs, band: 2_000...10_000)
            XCTAssertLessThanOrEqual(high.tail - high.reference, 3,
                                     "\(r.name): \(high.tail) dB at \(high.hertz) Hz, noise \(high.reference) dB")
        }
    }

    /// Late L/R correlation within ±0.05 and DC gain ≤ −40 dB on both sides.
    func testLateTailsStayUncorrelatedAndCarryNoDC() {
        for r in Self.responses {
            let c = IRA.lateCorrelation(left: r.left, right: r.right, sampleRate: Self.fs)
            XCTAssertLessThanOrEqual(abs(c), 0.05, "\(r.name): late L/R correlation \(c)")
            for (side, x) in [("L", r.left), ("R", r.right)] {
                XCTAssertLessThanOrEqual(IRA.dcGain(x), -40, "\(r.name) \(side): DC gain")
            }
        }
    }

    /// Every sample finite and never subnormal.
    func testEverySampleIsANormalFloat() {
        for r in Self.responses {
            XCTAssertTrue(r.left.allSatisfy { $0.isFinite && !$0.isSubnormal }, r.name)
            XCTAssertTrue(r.right.allSatisfy { $0.isFinite && !$0.isSubnormal }, r.name)
        }
    }

    // MARK: The modulation

    /// Every room at its own decay, at rates from 8 to 192 kHz, runs unmodulated (so it sounds
    /// exactly as designed); at 20 s every room is modulated (44.1 kHz and up), smallRoom at
    /// full depth.
    func testOnlyDecaysBeyondTheRoomsOwnAreModulated() {
        for rate in [8_000.0, 22_050, 44_100, 48_000, 96_000, 192_000] {
            for room in Room.allCases {
                var m = ReverbModulation()
                let c = ReverbCoefficients(room: room, sampleRate: rate)
                m.load(sampleRate: rate, lineDelay: c.lineDelay, diffuserDelay: c.diffuserDelay)
                m.update(decaySeconds: room.targetDecaySeconds)
                XCTAssertEqual(m.depth, 0, "\(room.name) at \(rate) Hz")
                m.update(decaySeconds: 20)
                if rate >= 44_100 { XCTAssertGreaterThan(m.depth, 0, "\(room.name) at \(rate) Hz, 20 s") }
            }
        }
        var m = ReverbModulation()
        let c = ReverbCoefficients(room: .smallRoom, sampleRate: 48_000)
        m.load(sampleRate: 48_000, lineDelay: c.lineDelay, diffuserDelay: c.diffuserDelay)
        m.update(decaySeconds: 20)
        XCTAssertEqual(m.depth, ReverbModulation.fullDepth)
    }

    /// The rotation is orthogonal for every angle the noise can give (so the loop stays
    /// lossless: c² + s² = 1 within float rounding), and the noise is continuous from group to
    /// group (a group's end is the next group's start), stays within −1…1 and wanders over most
    /// of it in every pair.
    func testRotationIsOrthogonalAndTheNoiseContinuous() {
        for t in stride(from: -ReverbModulation.fullDepth, through: ReverbModulation.fullDepth, by: 0.01) {
            let (c, s) = ReverbModulation.rotation(halfAngleTangent: SIMD4(repeating: t))
            for i in 0..<8 { XCTAssertEqual(c[i] * c[i] + s[i] * s[i], 1, accuracy: 1e-6, "t \(t)") }
        }
        var m = ReverbModulation()
        let c = ReverbCoefficients(room: .smallRoom, sampleRate: 48_000)
        m.load(sampleRate: 48_000, lineDelay: c.lineDelay, diffuserDelay: c.diffuserDelay)
        var lowest = SIMD4<Float>(repeating: 1), highest = SIMD4<Float>(repeating: -1), largestStep: Float = 0
        var previous = m.wander(group: 0)
        for group in 1..<60_000 {                        // 10 s at 48 kHz
            let w = m.wander(group: group)
            largestStep = max(largestStep, (w.start - previous.end).max(), (previous.end - w.start).max())
            lowest = pointwiseMin(lowest, w.start)
            highest = pointwiseMax(highest, w.start)
            previous = w
        }
        XCTAssertLessThanOrEqual(largestStep, 1e-6)
        XCTAssertGreaterThanOrEqual(lowest.min(), -1)
        XCTAssertLessThanOrEqual(highest.max(), 1)
        XCTAssertGreaterThan((highest - lowest).min(), 1, "every pair wanders over most of −1…1")
    }

    /// The modulated network (smallRoom, decay moving from 5 s to 20 s, a room change to
    /// cathedral half-way) gives bit-identical output in blocks of 64, 333 and 4096 frames,
    /// and twice the same output from a reset (no hidden state).
    func testModulationIsDeterministicAndBlockSizeInvariant() {
        let rate = 48_000.0, n = 48_000
        let x = DSPTestSignals.noise(n, seed: 7), xr = DSPTestSignals.noise(n, seed: 8)
        func run(_ block: Int) -> [Float] {
            var reverb = Reverb()
            reverb.prepare(sampleRate: rate, maxFrames: block)
            reverb.setRoom(.smallRoom, crossfadeFrames: 0)
            var out = [Float](repeating: 0, count: 2 * n)
            var i = 0
            while i < n {
                if i % 32 == 0 {
                    var shape = Room.smallRoom.shape
                    shape.decaySeconds = 5 + 15 * Double(i) / Double(n)
                    reverb.setShape(shape)
                }
                if i == n / 2 { reverb.setRoom(.cathedral, crossfadeFrames: 4_800) }
                let m = min(block, n - i, 32 - i % 32)
                x.withUnsafeBufferPointer { l in xr.withUnsafeBufferPointer { r in
                    out.withUnsafeMutableBufferPointer { o in
                        reverb.process(inputLeft: l.baseAddress! + i, inputRight: r.baseAddress! + i,
                                       outputLeft: o.baseAddress! + i, outputRight: o.baseAddress! + n + i,
                                       frames: m)
                    }
                } }
                i += m
            }
            return out
        }
        let reference = run(64)
        XCTAssertTrue(reference.allSatisfy(\.isFinite))
        XCTAssertGreaterThan(reference.map(abs).max() ?? 0, 0.01)
        for block in [333, 4096, 64] {
            XCTAssertEqual(run(block), reference, "block \(block)")
        }
    }
}
