import Foundation
import XCTest
import RackDSP
import RackEngine

/// A long render with random automation: every sample stays finite and the speed at the end
/// holds up against the speed at the start (no denormal or state build-up): the last tenth's
/// throughput at least `minimumSpeedRatio` of the first tenth's, timed in the thread's CPU time
/// so that other processes on the machine do not count. A denormal build-up costs 10× or more;
/// the bound leaves room for cache and frequency noise. The suite renders 36 s of audio;
/// `scripts/long-run` sets RACK_SOAK_HOURS=10 and runs it optimised (the README's benchmark).
final class SoakTests: XCTestCase {
    /// The least throughput of the last tenth as a fraction of the first tenth's.
    static let minimumSpeedRatio = 0.5

    /// The calling thread's CPU time in seconds.
    private static func threadSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    func testLongRandomAutomationStaysFiniteAndFast() throws {
        let hours = Double(ProcessInfo.processInfo.environment["RACK_SOAK_HOURS"] ?? "") ?? 0.01
        let rate = 48_000.0
        let block = 512
        let totalBlocks = Int(hours * 3600 * rate) / block
        let engine = Engine(sampleRate: rate, maxFrames: block)
        var rng = SoakRandom(seed: 7)
        var input = [Float](repeating: 0, count: block)
        var l = input, r = input
        var nextEventTime: Int64 = 0
        var pink = SIMD4<Float>.zero
        let segments = 10
        var segmentSeconds = [Double](repeating: 0, count: segments)
        let blocksPerSegment = max(1, totalBlocks / segments)
        var clock = Self.threadSeconds()
        var silentStretch = false
        for b in 0..<totalBlocks {
            let t = Int64(b * block)
            // Every ~0.5 s on average: a random change; sometimes a long silence (tails decay).
            while nextEventTime < t + Int64(block) {
                let spec = Parameters.all[Int(rng.next() % UInt64(Parameters.all.count))]
                let value = spec.taper == .choice ? Double(rng.next() % UInt64(spec.choices.count))
                    : spec.minimum + (spec.maximum - spec.minimum) * rng.unit()
                let ramp = Int64(rng.unit() * rng.unit() * 2 * rate)
                engine.schedule(EngineEvent(sampleTime: nextEventTime, .set(spec.id, value, ramp: RampLength(frames: ramp))))
                if rng.next() % 50 == 0 { silentStretch.toggle() }
                nextEventTime += Int64(rng.unit() * rate)
            }
            for i in 0..<block {
                // Roughly pink noise (Voss-style sum of held randoms), or silence.
                let k = Int(rng.next() % 4)
                pink[k] = Float(rng.unit() * 2 - 1)
                input[i] = silentStretch ? 0 : pink.sum() * 0.2
            }
            _ = engine.render(frames: block, inputLeft: input, inputRight: input, outputLeft: &l, outputRight: &r)
            for i in 0..<block where !(l[i].isFinite && r[i].isFinite) {
                XCTFail("non-finite output at sample \(t + Int64(i))")
                return
            }
            if (b + 1) % blocksPerSegment == 0 && (b + 1) / blocksPerSegment <= segments {
                let now = Self.threadSeconds()
                segmentSeconds[(b + 1) / blocksPerSegment - 1] = now - clock
                clock = now
            }
        }
        let audioPerSegment = Double(blocksPerSegment * block) / rate
        let first = audioPerSegment / segmentSeconds[0], last = audioPerSegment / segmentSeconds[segments - 1]
        print(String(format: "soak: %.2f h of audio, throughput first tenth %.0fx realtime, last tenth %.0fx realtime (ratio %.2f)",
                     Double(totalBlocks * block) / rate / 3600, first, last, last / first))
        XCTAssertGreaterThanOrEqual(last / first, Self.minimumSpeedRatio,
                                    "the last tenth renders slower than the first: state or denormal build-up")
    }
}

struct SoakRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state >> 16
    }
    mutating func unit() -> Double { Double(next() % 1_000_000) / 1_000_000 }
}
