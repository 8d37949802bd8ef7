import XCTest
@testable import RackDSP

/// Room changes spill over: the reverb's INPUT crossfades to the new room while the old
/// room's tail rings out, so the wet level never dips and nothing clicks.
final class RoomChangeTests: XCTestCase {
    typealias S = DSPTestSignals
    let rate = 48_000.0

    /// Sustained pink noise through a change `from` → `to` (100 ms crossfade) after `warm`
    /// seconds. Returns the dip: the lowest difference, over the 3 s after the change, between
    /// the 50 ms level and the lower of the two rooms' levels in the same window when each runs
    /// alone, fully built up, on the same input (so the input's own fluctuations cancel).
    func dip(from: Room, to: Room, warm: Double = 2.5) -> (dip: Double, at: Double, swell: Double) {
        let change = Int(warm * rate), n = change + Int(3 * rate)
        let xl = S.pinkNoise(n, seed: 11), xr = S.pinkNoise(n, seed: 12)
        let y = S.reverb(xl, xr, room: from, changes: [.init(at: change, room: to, frames: Int(0.1 * rate))])
        let a = S.reverb(xl, xr, room: from), b = S.reverb(xl, xr, room: to)
        let window = Int(0.05 * rate), hop = Int(0.01 * rate)
        let la = S.windowLevels(a, change..<n, window: window, hop: hop)
        let lb = S.windowLevels(b, change..<n, window: window, hop: hop)
        let ly = S.windowLevels(y, change..<n, window: window, hop: hop)
        var worst = (dip: Double.infinity, at: 0.0)
        var swell = -Double.infinity
        for k in ly.indices {
            let d = ly[k].level - min(la[k].level, lb[k].level)
            if d < worst.dip { worst = (d, Double(ly[k].start - change) / rate) }
            swell = max(swell, ly[k].level - max(la[k].level, lb[k].level))
        }
        return (worst.dip, worst.at, swell)
    }

    func testARoomChangeNeverDipsTheWetLevel() {
        #if DEBUG
        let pairs: [(Room, Room)] = [(.mediumHall, .cathedral), (.smallRoom, .cathedral)]
        #else
        let pairs: [(Room, Room)] = [(.mediumHall, .cathedral), (.smallRoom, .cathedral), (.cathedral, .smallRoom),
                                     (.plate, .largeHall2), (.largeHall, .mediumRoom)]
        #endif
        for (a, b) in pairs {
            let d = dip(from: a, to: b)
            print(String(format: "room change %@ → %@: 50 ms wet level at most %.2f dB below the lower of the two rooms' (%.2f s after the change), at most %.2f dB above the higher",
                         a.name, b.name, -d.dip, d.at, d.swell))
            XCTAssertGreaterThan(d.dip, -RoomChangeBounds.dipDecibels, "\(a.name) → \(b.name) dips \(d.dip) dB")
            XCTAssertLessThan(d.swell, RoomChangeBounds.swellDecibels, "\(a.name) → \(b.name) swells \(d.swell) dB")
        }
    }

    /// No click: the first difference (an HF-weighted measure) around the change stays within
    /// what the two rooms produce steadily together.
    func testARoomChangeDoesNotClick() {
        let change = Int(1.5 * rate), n = change + Int(0.5 * rate)
        let xl = S.noise(n, seed: 21), xr = S.noise(n, seed: 22)
        for (a, b) in [(Room.mediumHall, Room.cathedral), (.cathedral, .smallRoom), (.plate, .mediumChamber)] {
            let y = S.reverb(xl, xr, room: a, changes: [.init(at: change, room: b, frames: Int(0.1 * rate))])
            let ya = S.reverb(xl, xr, room: a), yb = S.reverb(xl, xr, room: b)
            // Largest 5 ms energy of the first difference: steady in each room (the last 0.5 s
            // of `a`, the same span of `b` alone) against the change (−10 ms … +400 ms).
            func hf(_ s: (left: [Float], right: [Float]), _ range: Range<Int>) -> Double {
                var worst = 0.0
                for w in stride(from: range.lowerBound, to: range.upperBound - 240, by: 48) {
                    var e = 0.0
                    for i in w..<(w + 240) {
                        let dl = Double(s.left[i] - s.left[i - 1]), dr = Double(s.right[i] - s.right[i - 1])
                        e += dl * dl + dr * dr
                    }
                    worst = max(worst, e)
                }
                return worst
            }
            let steady = hf(ya, (change - Int(0.5 * rate))..<change) + hf(yb, change..<n)
            let during = hf(y, (change - 480)..<(change + Int(0.4 * rate)))
            XCTAssertLessThan(during, steady, "\(a.name) → \(b.name): HF energy \(during) vs steady sum \(steady)")
            var maxStep: Float = 0, steadyStep: Float = 0
            for i in (change - 480)..<(change + 4800) {
                maxStep = max(maxStep, abs(y.left[i] - y.left[i - 1]), abs(y.right[i] - y.right[i - 1]))
            }
            for i in (change - Int(0.5 * rate))..<change {
                steadyStep = max(steadyStep, abs(ya.left[i] - ya.left[i - 1]), abs(ya.right[i] - ya.right[i - 1]),
                                 abs(yb.left[i] - yb.left[i - 1]), abs(yb.right[i] - yb.right[i - 1]))
            }
            XCTAssertLessThan(maxStep, 1.5 * steadyStep, "\(a.name) → \(b.name): step \(maxStep) vs steady \(steadyStep)")
        }
    }

    /// Spill-over, decay matching and a cut tail do not depend on how the calls are split.
    func testRoomChangesDoNotDependOnCallSizes() {
        let n = 30_000
        let xl = S.noise(n, seed: 31), xr = S.noise(n, seed: 32)
        // smallRoom → cathedral (decay matching), → plate (a third room: the oldest tail is cut),
        // → cathedral again (the tail still ringing takes the input back).
        let changes: [S.Change] = [.init(at: 5003, room: .cathedral, frames: 2400),
                                   .init(at: 9001, room: .plate, frames: 1000),
                                   .init(at: 9002, room: .cathedral, frames: 333)]
        let whole = S.reverb(xl, xr, room: .smallRoom, changes: changes, block: n)
        for block in [1, 7, 64, 333] {
            let split = S.reverb(xl, xr, room: .smallRoom, changes: changes, block: block)
            XCTAssertTrue(split.left == whole.left && split.right == whole.right, "calls of \(block) differ")
        }
        XCTAssertTrue(whole.left.allSatisfy(\.isFinite))
    }

    /// A slot that is clean again after a cut holds nothing of its former room: every float of
    /// its network (lines, diffusers, input diffusers, filter and DC blocker states) and its
    /// history is 0, so the next room it takes starts from silence.
    func testACleanSlotHoldsNothingOfItsFormerRoom() {
        var r = Reverb()
        r.prepare(sampleRate: rate, maxFrames: 64)
        r.setRoom(.plate, crossfadeFrames: 0)
        let n = Int(1.0 * rate)
        let x = S.noise(n, seed: 41)
        // plate → smallRoom → cathedral while the input runs: the third room cuts the plate's
        // tail (20 ms), which is then cleared in steps (10 ms).
        _ = S.process(&r, x, x, changes: [.init(at: Int(0.5 * rate), room: .smallRoom, frames: Int(0.1 * rate)),
                                          .init(at: Int(0.7 * rate), room: .cathedral, frames: Int(0.1 * rate))],
                      block: 64)
        var cleanSlots = 0
        for s in 0..<r.slotCount where r.slots![s].isIn(.clean) {
            cleanSlots += 1
            var nonZero = 0
            r.slots![s].core.forEachStateValue { if $0 != 0 { nonZero += 1 } }
            if let h = r.slots![s].history { for i in 0..<r.historyFloats where h[i] != 0 { nonZero += 1 } }
            XCTAssertEqual(nonZero, 0, "clean slot \(s) still holds \(nonZero) non-zero floats")
        }
        XCTAssertEqual(cleanSlots, 1, "the cut slot is not clean 0.2 s after the cut")
    }

    /// Decay matching and the bridge are on for every pair of rooms where the new room decays
    /// more slowly (they switch themselves off where a design makes the delays depend on more
    /// than what they keep): the matched and the bridging networks keep the old room's delays
    /// and loudness but not its loop gains, and the bridge lasts as long as the new room's late
    /// onset exceeds the old one's.
    func testDecayMatchingAndTheBridgeAreOnForEveryLongerRoom() {
        var r = Reverb()
        r.prepare(sampleRate: rate, maxFrames: 64)
        let fade = Int(0.1 * rate), fadeOut = r.matchedFadeOutFrames
        for from in Room.allCases {
            let own = r.table![from.index], held = r.holdTable![from.index]
            XCTAssertTrue(held.gain != own.gain && held.lineDelay == own.lineDelay
                          && held.outputScale == own.outputScale, "\(from.name): no bridging network")
            for to in Room.allCases where to.targetDecaySeconds > from.targetDecaySeconds {
                let m = r.decayTable![from.index * r.roomCount + to.index]
                XCTAssertTrue(m.gain != own.gain && m.lineDelay == own.lineDelay && m.outputScale == own.outputScale,
                              "\(from.name) → \(to.name): decay matching is off")
                let bridge = r.bridgeFrames(old: own, new: r.table![to.index], fadeIn: fade, fadeOut: fadeOut)
                XCTAssertGreaterThan(bridge, 0, "\(from.name) → \(to.name): no bridge")
            }
        }
    }

    /// The new room gets the whole input within the crossfade (≤ 200 ms), the old none.
    func testTheInputCrossfadeEndsWithinItsLength() {
        var r = Reverb()
        r.prepare(sampleRate: rate, maxFrames: 256)
        r.setRoom(.plate, crossfadeFrames: 0)
        let x = S.noise(Int(0.3 * rate), seed: 5)
        _ = S.process(&r, x, x)
        r.setRoom(.cathedral, crossfadeFrames: Int(0.2 * rate))
        XCTAssertEqual(r.room, .cathedral)
        _ = S.process(&r, Array(x[..<Int(0.2 * rate)]), Array(x[..<Int(0.2 * rate)]))
        XCTAssertEqual(r.fadeLength, 0, "crossfade still running after its length")
        XCTAssertEqual(r.active.room, .cathedral)
    }

    /// A burst of requests: the last one wins, and every request costs O(1).
    func testManyQuickChangesEndOnTheLastRoom() {
        var r = Reverb()
        r.prepare(sampleRate: rate, maxFrames: 48)
        r.setRoom(.plate, crossfadeFrames: 0)
        let x = S.noise(48, seed: 6)
        var out = [Float]()
        for i in 0..<200 {
            r.setRoom(Room.allCases[i % Room.allCases.count], crossfadeFrames: 4800)
            let y = S.process(&r, x, x, block: 48)
            out += y.left
        }
        r.setRoom(.cathedral, crossfadeFrames: 4800)
        let tail = S.process(&r, S.noise(Int(0.5 * rate), seed: 8), S.noise(Int(0.5 * rate), seed: 9))
        XCTAssertTrue(out.allSatisfy(\.isFinite) && tail.left.allSatisfy(\.isFinite))
        XCTAssertEqual(r.room, .cathedral)
        XCTAssertEqual(r.active.room, .cathedral)
        XCTAssertEqual(r.fadeLength, 0)
    }
}

/// Bounds of the room-change tests, with their reasons.
enum RoomChangeBounds {
    /// Largest dip of the 50 ms wet level below the lower of the two rooms' steady levels.
    static let dipDecibels = 1.5
    /// Largest rise above the higher of the two rooms' levels: the old tail ringing out over a
    /// new room adds two uncorrelated signals of about equal level, +3 dB at most, plus the
    /// 50 ms windows' spread.
    static let swellDecibels = 3.5
}
