import XCTest
@testable import RackDSP

/// The `predelay` control (`ReverbShape.predelaySeconds`, `ReverbPredelay`) against the math:
/// the reverb's first energy moves by the setting; a change under a steady sine neither
/// splatters nor bends the pitch (a crossfade between two read positions, never a sliding one).
final class ReverbPredelayTests: XCTestCase {
    typealias IRA = ImpulseResponseAnalysis

    /// The onset (first sample within 40 dB of the peak, `firstArrival`) of the impulse
    /// response moves by the setting ±0.5 ms, at 44.1, 48 and 96 kHz, in a room with early
    /// reflections (smallRoom, cathedral) and one without (plate).
    func testPredelayMovesTheFirstEnergyByTheSetting() throws {
        #if DEBUG
        let rates = [48_000.0], settings = [0.0107, 0.25]
        #else
        let rates = [44_100.0, 48_000, 96_000], settings = [0.000_3, 0.001, 0.0107, 0.05, 0.137, 0.25]
        #endif
        for rate in rates {
            for room in [Room.smallRoom, .plate, .cathedral] {
                let own = ReverbShapeTests.response(room, rate: rate, shape: room.shape, seconds: 0.1)
                let ownOnset = try XCTUnwrap(IRA.firstArrival(left: own.left, right: own.right))
                for seconds in settings {
                    var shape = room.shape
                    shape.predelaySeconds = seconds
                    let r = ReverbShapeTests.response(room, rate: rate, shape: shape, seconds: seconds + 0.1)
                    let onset = try XCTUnwrap(IRA.firstArrival(left: r.left, right: r.right))
                    let moved = Double(onset - ownOnset) / rate
                    XCTAssertEqual(moved, seconds, accuracy: 0.000_5,
                                   "\(room.name) at \(rate) Hz: onset moved \(moved * 1000) ms for \(seconds * 1000) ms")
                }
            }
        }
    }

    /// Output of mediumHall fed a 1 kHz sine (both inputs; faded in over 0.2 s, a raised cosine,
    /// so its onset leaves nothing in the top octaves) for `seconds`, with `shapes` set at their
    /// frames (every one a multiple of 32, the engine's control tick).
    static func sineThrough(shapes: [(at: Int, shape: ReverbShape)], seconds: Double,
                            rate: Double = 48_000) -> (left: [Float], right: [Float]) {
        let n = Int(seconds * rate)
        let fade = 0.2 * rate
        let x = (0..<n).map { i -> Float in
            let gain = Double(i) < fade ? 0.5 - 0.5 * cos(Double.pi * Double(i) / fade) : 1
            return Float(0.5 * gain * sin(2 * Double.pi * 1_000 * Double(i) / rate))
        }
        var reverb = Reverb()
        reverb.prepare(sampleRate: rate, maxFrames: 4096)
        reverb.setRoom(.mediumHall, crossfadeFrames: 0)
        var out = (left: [Float](), right: [Float]())
        var start = 0
        for (k, change) in shapes.enumerated() {
            if change.at > start {
                let y = IRA.render(&reverb, left: Array(x[start..<change.at]), right: Array(x[start..<change.at]))
                out.left += y.left
                out.right += y.right
                start = change.at
            }
            reverb.setShape(change.shape)
            if k == shapes.count - 1 {
                let y = IRA.render(&reverb, left: Array(x[start...]), right: Array(x[start...]))
                out.left += y.left
                out.right += y.right
            }
        }
        return out
    }

    /// The shape with `predelaySeconds`.
    static func predelayed(_ seconds: Double) -> ReverbShape {
        var shape = Room.mediumHall.shape
        shape.predelaySeconds = seconds
        return shape
    }

    /// The change as one jump at `at` and as a 200 ms linear ramp from `at` (a setting every 32
    /// samples, as the engine sends a ramp).
    static func changes(from a: Double, to b: Double, at: Int, rampFrames: Int)
        -> (jump: [(at: Int, shape: ReverbShape)], ramp: [(at: Int, shape: ReverbShape)]) {
        let jump = [(at: 0, shape: predelayed(a)), (at: at, shape: predelayed(b))]
        var ramp = [(at: 0, shape: predelayed(a))]
        for tick in stride(from: 0, through: rampFrames, by: 32) {
            ramp.append((at: at + tick, shape: predelayed(a + (b - a) * Double(tick) / Double(rampFrames))))
        }
        return (jump, ramp)
    }

    /// Energy (dB, both channels) above `aboveHz` of the 20 ms window (Hann) at `start`.
    static func windowEnergy(_ y: (left: [Float], right: [Float]), at start: Int, aboveHz: Double,
                             rate: Double) -> Double {
        let window = Int(0.02 * rate), size = 1024
        let firstBin = Int(aboveHz / rate * Double(size))
        var energy = 0.0
        for channel in [y.left, y.right] {
            var re = [Double](repeating: 0, count: size), im = re
            for i in 0..<window {
                re[i] = (0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(window))) * Double(channel[start + i])
            }
            IRA.fft(&re, &im)
            for k in firstBin...(size / 2) { energy += re[k] * re[k] + im[k] * im[k] }
        }
        return 10 * log10(max(energy, 1e-30))
    }

    /// Energy (dB) above 8 kHz in the worst 20 ms window (hop 5 ms) of `range`: the splatter a
    /// click or a fast gain change leaves in the top octaves.
    static func worstSplatter(_ y: (left: [Float], right: [Float]), _ range: Range<Int>, rate: Double) -> Double {
        stride(from: range.lowerBound, through: range.upperBound - Int(0.02 * rate), by: Int(0.005 * rate))
            .map { windowEnergy(y, at: $0, aboveHz: 8_000, rate: rate) }.max() ?? -300
    }

    /// Zero crossings of `x` in each 50 ms window (hop 10 ms) of `range`.
    static func crossings(_ x: [Float], _ range: Range<Int>, rate: Double) -> [Int] {
        let window = Int(0.05 * rate), hop = Int(0.01 * rate)
        return stride(from: range.lowerBound, through: range.upperBound - window, by: hop).map { start in
            (start + 1..<start + window).filter { (x[$0 - 1] < 0) != (x[$0] < 0) }.count
        }
    }

    /// A jump of the setting under a 1 kHz sine (10 → 210.5 ms and back to 0: a half-period
    /// phase step, the worst case for a crossfade) leaves no more energy above 8 kHz in its worst
    /// 20 ms than the same change ramped over 200 ms (+3 dB), and that energy is at least 100 dB
    /// under the sine's; the pitch holds: every 50 ms window from the change on has the
    /// sine's 100 zero crossings ±2 (a read position sliding the same distance within the
    /// crossfade, varispeed, would cross about 10 times as often: checked on the formula).
    func testAChangeUnderASineNeitherSplattersNorBendsThePitch() {
        let rate = 48_000.0, at = 96_000, ramp = Int(0.2 * rate)
        for (a, b) in [(0.01, 0.2105), (0.2105, 0.0)] {
            let (jump, ramped) = Self.changes(from: a, to: b, at: at, rampFrames: ramp)
            let y = Self.sineThrough(shapes: jump, seconds: 2.6)
            let reference = Self.sineThrough(shapes: ramped, seconds: 2.6)
            let around = (at - 960)..<(at + Int(0.4 * rate))
            let splatter = Self.worstSplatter(y, around, rate: rate)
            let referenceSplatter = Self.worstSplatter(reference, around, rate: rate)
            let steady = Self.windowEnergy(y, at: at - 9600, aboveHz: 0, rate: rate)
            print(String(format: "predelay %.1f → %.1f ms under a 1 kHz sine: worst 20 ms above 8 kHz %.1f dB (200 ms ramp %.1f dB), the sine %.1f dB",
                         a * 1000, b * 1000, splatter, referenceSplatter, steady))
            XCTAssertLessThanOrEqual(splatter, referenceSplatter + 3)
            XCTAssertLessThan(splatter, steady - 100)
            for (side, x) in [("L", y.left), ("R", y.right)] {
                let counts = Self.crossings(x, at..<(at + Int(0.5 * rate)), rate: rate)
                XCTAssertTrue(counts.allSatisfy { abs($0 - 100) <= 2 }, "\(side): zero crossings per 50 ms \(counts)")
            }
        }
        // The measure can fail: a read position sliding 200 ms within 20 ms (varispeed).
        let slide = (0..<Int(0.1 * rate)).map { i -> Float in
            let t = Double(i) / rate
            let delay = 0.01 + 0.2 * min(max((t - 0.04) / 0.02, 0), 1)
            return Float(sin(2 * Double.pi * 1_000 * (t - delay)))
        }
        XCTAssertTrue(Self.crossings(slide, 0..<slide.count, rate: rate).contains { abs($0 - 100) > 2 })
    }
}
