import XCTest
@testable import RackDSP

/// The reverb measured against acoustics and signal theory (Schroeder decay times against the
/// documented targets, correlation, exact block/time invariance, continuity, float classes),
/// never against its own earlier output.
///
/// Runtime: debug builds run the SIMD kernel ~300× slower than release, so responses are only
/// as long as the measurements need and are shared between tests (the 48 kHz set also by
/// `ReverbQualityTests`); the 30-second noise soak runs in full in release builds only.
final class ReverbTests: XCTestCase {
    typealias IRA = ImpulseResponseAnalysis

    /// Impulse responses of every room at 48 kHz (mono impulse into both inputs), rendered once:
    /// T60 + 0.3 s, long enough for T30 (−35 dB) and for the late tail's −40 dB end.
    static let responses48k: [(room: Room, left: [Float], right: [Float])] = responses(at: 48_000)

    /// Impulse responses of every room at `rate`, T60 + 0.3 s long.
    static func responses(at rate: Double, length: (Room) -> Double = { $0.targetDecaySeconds + 0.3 })
        -> [(room: Room, left: [Float], right: [Float])] {
        var reverb = Reverb()
        reverb.prepare(sampleRate: rate, maxFrames: 4096)
        return Room.allCases.map { room in
            reverb.setRoom(room, crossfadeFrames: 0)
            reverb.reset()
            let ir = IRA.impulseResponse(&reverb, frames: Int(length(room) * rate))
            return (room, ir.left, ir.right)
        }
    }

    // MARK: Decay times

    /// T20 (−5…−25 dB) and T30 (−5…−35 dB) of every room within ±10 % of its target at 48 kHz
    /// (±15 % is promised; the documentation tabulates both), ordered by size.
    func testEveryRoomDecaysWithinTenPercentOfItsTargetAt48k() throws {
        var measured: [Room: Double] = [:]
        for r in Self.responses48k {
            let target = r.room.targetDecaySeconds
            let t20 = try XCTUnwrap(IRA.reverberationTime(left: r.left, right: r.right, sampleRate: 48_000),
                                    "\(r.room.name): decay curve does not reach −25 dB")
            let t30 = try XCTUnwrap(IRA.reverberationTime(left: r.left, right: r.right, sampleRate: 48_000,
                                                          lower: -35),
                                    "\(r.room.name): decay curve does not reach −35 dB")
            XCTAssertEqual(t20, target, accuracy: 0.10 * target, "\(r.room.name): T20 \(t20) s, target \(target) s")
            XCTAssertEqual(t30, target, accuracy: 0.10 * target, "\(r.room.name): T30 \(t30) s, target \(target) s")
            measured[r.room] = t30
        }
        // Ordering of sizes.
        let m = measured
        XCTAssertLessThan(m[.smallRoom]!, m[.mediumRoom]!)
        XCTAssertLessThan(m[.mediumRoom]!, m[.largeRoom]!)
        let rooms: [Room] = [.smallRoom, .mediumRoom, .largeRoom, .largeRoom2]
        let halls: [Room] = [.mediumHall, .mediumHall2, .mediumHall3, .largeHall, .largeHall2]
        for h in halls {
            for r in rooms { XCTAssertGreaterThan(m[h]!, m[r]!, "\(h.name) vs \(r.name)") }
        }
        for room in Room.allCases where room != .cathedral {
            XCTAssertGreaterThan(m[.cathedral]!, m[room]!, "cathedral vs \(room.name)")
        }
    }

    /// At 44.1 and 96 kHz too, every room's T20 and T30 within ±10 % of its target (the
    /// responses are 0.8·T60 + 0.2 s: T30's −35 dB is reached, and debug runs stay short).
    func testEveryRoomDecaysWithinTenPercentAt44100And96000() throws {
        for rate in [44_100.0, 96_000.0] {
            for r in Self.responses(at: rate, length: { 0.8 * $0.targetDecaySeconds + 0.2 }) {
                let target = r.room.targetDecaySeconds
                for (name, lower) in [("T20", -25.0), ("T30", -35.0)] {
                    let t = try XCTUnwrap(IRA.reverberationTime(left: r.left, right: r.right, sampleRate: rate,
                                                                lower: lower),
                                          "\(r.room.name) at \(rate) Hz: no \(name)")
                    XCTAssertEqual(t, target, accuracy: 0.10 * target,
                                   "\(r.room.name) at \(rate) Hz: \(name) \(t) s, target \(target) s")
                }
            }
        }
    }

    // MARK: Stereo, energy

    func testLeftAndRightTailsAreDecorrelated() {
        let start = Int(0.05 * 48_000)
        for r in Self.responses48k {
            let c = IRA.normalizedCrossCorrelation(r.left, r.right, range: start..<r.left.count)
            XCTAssertLessThan(abs(c), 0.3, "\(r.room.name): L/R correlation \(c)")
        }
    }

    func testImpulseResponseHasFiniteNonZeroEnergy() {
        var energies: [Double] = []
        for r in Self.responses48k {
            XCTAssertTrue(r.left.allSatisfy { $0.isFinite } && r.right.allSatisfy { $0.isFinite })
            let e = IRA.energy(r.left) + IRA.energy(r.right)
            XCTAssertTrue(e.isFinite)
            // Late reverb normalised to 0.25 for pink-weighted input (ReverbTuning.lateEnergy);
            // a white impulse measures less (HF damping, input smoothing), plus the early taps.
            XCTAssertGreaterThan(e, 0.03, "\(r.room.name)")
            XCTAssertLessThan(e, 1, "\(r.room.name)")
            XCTAssertGreaterThan(IRA.energy(r.left), 0.3 * IRA.energy(r.right), "\(r.room.name)")
            XCTAssertGreaterThan(IRA.energy(r.right), 0.3 * IRA.energy(r.left), "\(r.room.name)")
            energies.append(e)
        }
        // Rooms are loudness-matched: within 4 dB of each other even on this white measure.
        XCTAssertLessThan(energies.max()! / energies.min()!, 2.5)
    }

    // MARK: Invariance

    /// Renders `input` (both channels) with calls of the given sizes, cycling through them.
    /// `switchAt`: frame before which `setRoom(to, crossfadeFrames: 2400)` is called (the call
    /// sizes are split so that a call boundary falls there).
    static func renderInCalls(_ input: [Float], sizes: [Int], room: Room,
                              switchAt: Int? = nil, to: Room = .plate) -> [Float] {
        var reverb = Reverb()
        reverb.prepare(sampleRate: 48_000, maxFrames: input.count)
        reverb.setRoom(room, crossfadeFrames: 0)
        var outL = [Float](repeating: 0, count: input.count)
        var outR = outL
        input.withUnsafeBufferPointer { x in
            outL.withUnsafeMutableBufferPointer { l in
                outR.withUnsafeMutableBufferPointer { r in
                    var i = 0, s = 0
                    while i < input.count {
                        var m = min(sizes[s % sizes.count], input.count - i)
                        if let at = switchAt, i < at { m = min(m, at - i) }
                        if let at = switchAt, i == at { reverb.setRoom(to, crossfadeFrames: 2400) }
                        reverb.process(inputLeft: x.baseAddress! + i, inputRight: x.baseAddress! + i,
                                       outputLeft: l.baseAddress! + i, outputRight: r.baseAddress! + i,
                                       frames: m)
                        i += m
                        s += 1
                    }
                }
            }
        }
        return outL + outR
    }

    func testSplittingBlocksGivesBitIdenticalOutput() {
        let input = IRA.noise(count: 12_000, amplitude: 0.5)
        let whole = Self.renderInCalls(input, sizes: [input.count], room: .largeHall)
        for sizes in [[64], [333], [4096], [1, 7, 8, 333, 64, 9]] {
            let split = Self.renderInCalls(input, sizes: sizes, room: .largeHall)
            XCTAssertTrue(split == whole, "calls of \(sizes) differ from one call")
        }
        // Also across a room crossfade requested at the same sample.
        let wholeFade = Self.renderInCalls(input, sizes: [input.count], room: .largeHall, switchAt: 5003)
        let splitFade = Self.renderInCalls(input, sizes: [333, 64], room: .largeHall, switchAt: 5003)
        XCTAssertTrue(wholeFade == splitFade, "crossfade depends on call sizes")
    }

    func testResponseIsTheSameShiftedInTime() {
        var reverb = Reverb()
        reverb.prepare(sampleRate: 48_000, maxFrames: 4096)
        reverb.setRoom(.mediumChamber, crossfadeFrames: 0)
        let n = 12_000
        let a = IRA.impulseResponse(&reverb, frames: n)
        let peak = max(a.left.map(abs).max()!, a.right.map(abs).max()!)
        XCTAssertGreaterThan(peak, 0)
        // 1000: a multiple of the kernel's 8-sample groups; 1003: not.
        for shift in [1000, 1003] {
            reverb.reset()
            let b = IRA.impulseResponse(&reverb, frames: n, at: shift)
            for i in 0..<shift {
                XCTAssertLessThan(abs(b.left[i]), 1e-15)
                XCTAssertLessThan(abs(b.right[i]), 1e-15)
            }
            var worst: Float = 0
            for i in 0..<(n - shift) {
                worst = max(worst, abs(b.left[i + shift] - a.left[i]), abs(b.right[i + shift] - a.right[i]))
            }
            // Only the ±1e-20 anti-denormal floor may differ.
            XCTAssertLessThanOrEqual(worst, 1e-6 * peak, "shift \(shift)")
        }
    }

    // MARK: Room changes

    func testRoomCrossfadeHasNoJumps() {
        let rate = 48_000.0
        let pre = Int(0.4 * rate), fade = Int(0.1 * rate), post = Int(0.02 * rate)
        let noise = IRA.noise(count: pre + fade + post, amplitude: 0.5, seed: 7)
        for (from, to) in [(Room.smallRoom, Room.largeHall), (.plate, .mediumChamber), (.cathedral, .smallRoom)] {
            var reverb = Reverb()
            reverb.prepare(sampleRate: rate, maxFrames: 4096)
            reverb.setRoom(from, crossfadeFrames: 0)
            let x1 = Array(noise[0..<pre]), x2 = Array(noise[pre...])
            let before = IRA.render(&reverb, left: x1, right: x1)
            reverb.setRoom(to, crossfadeFrames: fade)
            XCTAssertEqual(reverb.room, to)
            let after = IRA.render(&reverb, left: x2, right: x2)

            // The new room alone on the same input: its own steady sample-to-sample steps.
            var alone = Reverb()
            alone.prepare(sampleRate: rate, maxFrames: 4096)
            alone.setRoom(to, crossfadeFrames: 0)
            let reference = IRA.render(&alone, left: noise, right: noise)

            let half = pre / 2
            let steadyOld = max(IRA.maxStep(before.left, in: half..<pre), IRA.maxStep(before.right, in: half..<pre))
            let steadyNew = max(IRA.maxStep(reference.left, in: half..<(pre + fade)),
                                IRA.maxStep(reference.right, in: half..<(pre + fade)))
            let boundary = max(abs(after.left[0] - before.left[pre - 1]), abs(after.right[0] - before.right[pre - 1]))
            let during = max(IRA.maxStep(after.left, in: 1..<(fade + post)),
                             IRA.maxStep(after.right, in: 1..<(fade + post)), boundary)
            XCTAssertTrue(after.left.allSatisfy { $0.isFinite } && after.right.allSatisfy { $0.isFinite })
            XCTAssertLessThanOrEqual(during, 1.5 * max(steadyOld, steadyNew),
                                     "\(from.name) → \(to.name): step \(during), steady \(steadyOld) / \(steadyNew)")
        }
    }

    func testRoomRequestsDuringAFadeAreQueued() {
        var reverb = Reverb()
        reverb.prepare(sampleRate: 48_000, maxFrames: 4096)
        reverb.setRoom(.smallRoom, crossfadeFrames: 0)
        XCTAssertEqual(reverb.room, .smallRoom)
        reverb.setRoom(.largeHall, crossfadeFrames: 1000)
        reverb.setRoom(.plate, crossfadeFrames: 1000)     // queued behind the running fade
        XCTAssertEqual(reverb.room, .plate)
        let x = IRA.noise(count: 3000, amplitude: 0.5)
        let y = IRA.render(&reverb, left: x, right: x, block: 256)
        XCTAssertTrue(y.left.allSatisfy { $0.isFinite })
        XCTAssertEqual(reverb.active.room, .plate)
        XCTAssertEqual(reverb.fadeLength, 0)
        // Instant switch.
        reverb.setRoom(.cathedral, crossfadeFrames: 0)
        XCTAssertEqual(reverb.active.room, .cathedral)
        XCTAssertEqual(reverb.room, .cathedral)
    }

    // MARK: Robustness

    /// An impulse, then 60 s of silence: every state value and every output is 0 or a normal
    /// float (never subnormal) and finite.
    func testSilenceNeverLeavesSubnormalState() {
        #if DEBUG
        let cases: [(Room, Double)] = [(.smallRoom, 8_000)]      // fastest decay; low rate keeps debug runs short
        #else
        let cases: [(Room, Double)] = [(.smallRoom, 8_000), (.smallRoom, 48_000), (.cathedral, 48_000)]
        #endif
        for (room, rate) in cases {
            var reverb = Reverb()
            reverb.prepare(sampleRate: rate, maxFrames: 4096)
            reverb.setRoom(room, crossfadeFrames: 0)
            let block = 4096
            var inL = [Float](repeating: 0, count: block)
            inL[0] = 1
            var outL = [Float](repeating: 0, count: block), outR = outL
            var subnormalOutputs = 0, nonFinite = 0
            var lastPeak: Float = 0
            let total = Int(60 * rate) + 1
            var done = 0
            while done < total {
                let m = min(block, total - done)
                inL.withUnsafeBufferPointer { x in
                    outL.withUnsafeMutableBufferPointer { l in
                        outR.withUnsafeMutableBufferPointer { r in
                            reverb.process(inputLeft: x.baseAddress!, inputRight: x.baseAddress!,
                                           outputLeft: l.baseAddress!, outputRight: r.baseAddress!, frames: m)
                        }
                    }
                }
                if done == 0 { inL[0] = 0 }
                for i in 0..<m {
                    if outL[i].isSubnormal || outR[i].isSubnormal { subnormalOutputs += 1 }
                    if !outL[i].isFinite || !outR[i].isFinite { nonFinite += 1 }
                }
                lastPeak = max(outL[0..<m].map(abs).max()!, outR[0..<m].map(abs).max()!)
                done += m
            }
            var subnormalState = 0, stateCount = 0
            reverb.forEachStateValue { v in
                stateCount += 1
                if v.isSubnormal || !v.isFinite { subnormalState += 1 }
            }
            XCTAssertGreaterThan(stateCount, 0)
            XCTAssertEqual(subnormalOutputs, 0, "\(room.name) at \(rate)")
            XCTAssertEqual(nonFinite, 0, "\(room.name) at \(rate)")
            XCTAssertEqual(subnormalState, 0, "\(room.name) at \(rate)")
            XCTAssertLessThan(lastPeak, 1e-15, "\(room.name) at \(rate): the tail has died away")
        }
    }

    /// Full-scale white noise in every room stays finite and bounded, and once the reverb has
    /// filled up (3 T60 in) its level does not grow: the last second's energy against the
    /// second from 3 T60. Release builds run 30 s in every room (cathedral's 15 s fill
    /// included); debug builds, where the kernel is too slow for more, run 1 s per room and
    /// 3.5 s of smallRoom, whose growth check they make. The loop-gain test below covers
    /// stability analytically.
    func testFullScaleNoiseStaysBounded() {
        #if DEBUG
        func duration(_ room: Room) -> Double { room == .smallRoom ? 3.5 : 1.0 }
        let growthChecksExpected = 1
        #else
        func duration(_ room: Room) -> Double { 30.0 }
        let growthChecksExpected = Room.allCases.count
        #endif
        let rate = 48_000.0
        let block = 4096
        let noiseL = IRA.noise(count: block, seed: 1), noiseR = IRA.noise(count: block, seed: 2)
        var growthChecks = 0
        for room in Room.allCases {
            let seconds = duration(room)
            let filled = 3 * room.targetDecaySeconds
            var reverb = Reverb()
            reverb.prepare(sampleRate: rate, maxFrames: block)
            reverb.setRoom(room, crossfadeFrames: 0)
            var outL = [Float](repeating: 0, count: block), outR = outL
            var peak: Float = 0, finite = true
            var energyLate = 0.0, countLate = 0, energyMid = 0.0, countMid = 0
            let total = Int(seconds * rate)
            var done = 0, round = 0
            while done < total {
                let m = min(block, total - done)
                // Rotate through the noise block so successive blocks differ.
                let offset = (round * 977) % block
                let xl = Array(noiseL[offset...] + noiseL[..<offset])
                let xr = Array(noiseR[offset...] + noiseR[..<offset])
                xl.withUnsafeBufferPointer { a in
                    xr.withUnsafeBufferPointer { b in
                        outL.withUnsafeMutableBufferPointer { l in
                            outR.withUnsafeMutableBufferPointer { r in
                                reverb.process(inputLeft: a.baseAddress!, inputRight: b.baseAddress!,
                                               outputLeft: l.baseAddress!, outputRight: r.baseAddress!, frames: m)
                            }
                        }
                    }
                }
                for i in 0..<m {
                    finite = finite && outL[i].isFinite && outR[i].isFinite
                    peak = max(peak, abs(outL[i]), abs(outR[i]))
                    let e = Double(outL[i] * outL[i] + outR[i] * outR[i])
                    let t = Double(done + i) / rate
                    if t >= seconds - 1 { energyLate += e; countLate += 1 }
                    if t >= filled && t < filled + 1 { energyMid += e; countMid += 1 }
                }
                done += m
                round += 1
            }
            XCTAssertTrue(finite, room.name)
            XCTAssertLessThan(peak, 4, room.name)
            // No growth once the reverb has filled up (3 T60 in).
            if filled + 1 <= seconds - 1 {
                growthChecks += 1
                XCTAssertLessThan(energyLate / Double(countLate), 1.5 * energyMid / Double(countMid), room.name)
            }
        }
        XCTAssertEqual(growthChecks, growthChecksExpected, "rooms whose growth was checked")
    }

    /// Stability from the coefficients: with an orthogonal feedback matrix the network is
    /// stable when every line's loop gain is below 1 at every frequency. A loop is the line's
    /// filters times its absorbent diffuser, whose gain is at most (a + g)/(1 + a·g) < 1.
    func testEveryLoopGainIsBelowOne() {
        for rate in [44_100.0, 48_000.0, 96_000.0] {
            for room in Room.allCases {
                let c = ReverbCoefficients(room: room, sampleRate: rate)
                let g = Double(c.diffusion)
                for i in 0..<8 {
                    XCTAssertGreaterThanOrEqual(c.damping[i], 0)
                    XCTAssertLessThan(c.damping[i], 1)
                    XCTAssertGreaterThanOrEqual(Int(c.lineDelay[i]), 8)
                    XCTAssertGreaterThanOrEqual(Int(c.diffuserDelay[i]), 8)
                    XCTAssertGreaterThanOrEqual(Int(c.inputDiffuserDelay[i]), 8)
                    let a = Double(c.diffuserAbsorption[i])
                    XCTAssertTrue(a > 0 && a < 1, "\(room.name): absorption \(a)")
                    let diffuserPower = ((a + g) / (1 + a * g)) * ((a + g) / (1 + a * g))
                    var worst = 0.0
                    for j in 0...512 {
                        let w = RackMath.pi * Double(j) / 512
                        let (sinW, cosW) = RackMath.sincos(w)
                        worst = max(worst, diffuserPower * ReverbCoefficients.loopPower(
                            sinW: sinW, cosW: cosW, gain: Double(c.gain[i]) * 8.0.squareRoot(),
                            lowShelf: Double(c.lowShelf[i]) * 8.0.squareRoot(),
                            lowCoefficient: Double(c.lowCoefficient), damping: Double(c.damping[i])))
                    }
                    XCTAssertLessThan(worst, 1, "\(room.name) at \(rate), line \(i)")
                }
                // All 24 delays (lines, their diffusers, the input diffusers) distinct primes.
                let delays = (0..<8).map { Int(c.lineDelay[$0]) } + (0..<8).map { Int(c.diffuserDelay[$0]) }
                    + (0..<8).map { Int(c.inputDiffuserDelay[$0]) }
                XCTAssertEqual(Set(delays).count, 24, room.name)
                XCTAssertTrue(delays.allSatisfy(ReverbCoefficients.isPrime), room.name)
                // The second output taps lie inside every line and are at least a group apart.
                XCTAssertTrue((0..<8).allSatisfy { c.midTapDelay[$0] >= 8 && c.midTapDelay[$0] < c.lineDelay[$0] })
            }
        }
    }

    // MARK: API

    func testUnpreparedReverbOutputsSilenceAndPreparesAgain() {
        var reverb = Reverb()
        var x = [Float](repeating: 1, count: 64)
        var l = [Float](repeating: 9, count: 64), r = l
        func run() {
            x.withUnsafeMutableBufferPointer { xp in
                l.withUnsafeMutableBufferPointer { lp in
                    r.withUnsafeMutableBufferPointer { rp in
                        reverb.process(inputLeft: xp.baseAddress!, inputRight: xp.baseAddress!,
                                       outputLeft: lp.baseAddress!, outputRight: rp.baseAddress!, frames: 64)
                    }
                }
            }
        }
        run()
        XCTAssertTrue(l.allSatisfy { $0 == 0 } && r.allSatisfy { $0 == 0 })
        reverb.setRoom(.plate, crossfadeFrames: 100)      // no-op apart from the name
        reverb.reset()
        XCTAssertEqual(reverb.room, .plate)
        reverb.prepare(sampleRate: 44_100, maxFrames: 64)
        reverb.prepare(sampleRate: 48_000, maxFrames: 64)    // re-prepare frees and reallocates
        XCTAssertEqual(reverb.sampleRate, 48_000)
        XCTAssertEqual(reverb.room, .plate)
        run()
        XCTAssertTrue(l.allSatisfy(\.isFinite) && r.allSatisfy(\.isFinite))
    }
}
