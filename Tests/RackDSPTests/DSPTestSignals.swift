import Foundation
import RackDSP

/// Signals and renders shared by the kernel-recovery and room-change tests.
enum DSPTestSignals {
    /// Deterministic uniform noise in [−amplitude, amplitude] (xorshift; no global RNG state).
    static func noise(_ count: Int, amplitude: Float = 0.5, seed: UInt32) -> [Float] {
        var s = seed == 0 ? 1 : seed
        return (0..<count).map { _ in
            s ^= s << 13; s ^= s >> 17; s ^= s << 5
            return amplitude * (Float(s) / Float(UInt32.max) * 2 - 1)
        }
    }

    /// Pink noise (−3 dB/octave; P. Kellet's economy filter over `noise`), peaking near
    /// `amplitude`: the spectrum the rooms are loudness-matched for, and the one whose low end
    /// (the longest decays) takes longest to build up.
    static func pinkNoise(_ count: Int, amplitude: Float = 0.5, seed: UInt32) -> [Float] {
        let white = noise(count, amplitude: 1, seed: seed)
        var b0: Float = 0, b1: Float = 0, b2: Float = 0
        return white.map { w in
            b0 = 0.99765 * b0 + w * 0.0990460
            b1 = 0.96300 * b1 + w * 0.2965164
            b2 = 0.57000 * b2 + w * 1.0526913
            return amplitude * 0.2 * (b0 + b1 + b2 + w * 0.1848)
        }
    }

    /// A room change requested before input frame `at`.
    struct Change {
        var at: Int
        var room: Room
        var frames: Int
    }

    /// Runs `left`/`right` through a reverb in `room` (set up at once), in calls of `block`
    /// frames, with `changes` requested at their frames (calls are split there).
    static func reverb(_ left: [Float], _ right: [Float], room: Room, changes: [Change] = [],
                       block: Int = 256, rate: Double = 48_000) -> (left: [Float], right: [Float]) {
        var r = Reverb()
        r.prepare(sampleRate: rate, maxFrames: block)
        r.setRoom(room, crossfadeFrames: 0)
        return process(&r, left, right, changes: changes, block: block)
    }

    /// `reverb`'s loop on a prepared reverb.
    static func process(_ r: inout Reverb, _ left: [Float], _ right: [Float], changes: [Change] = [],
                        block: Int = 256) -> (left: [Float], right: [Float]) {
        var outL = [Float](repeating: 0, count: left.count), outR = outL
        var next = 0, i = 0
        left.withUnsafeBufferPointer { xl in right.withUnsafeBufferPointer { xr in
            outL.withUnsafeMutableBufferPointer { l in outR.withUnsafeMutableBufferPointer { o in
                while i < left.count {
                    while next < changes.count && changes[next].at <= i {
                        r.setRoom(changes[next].room, crossfadeFrames: changes[next].frames)
                        next += 1
                    }
                    var m = min(block, left.count - i)
                    if next < changes.count { m = min(m, changes[next].at - i) }
                    r.process(inputLeft: xl.baseAddress! + i, inputRight: xr.baseAddress! + i,
                              outputLeft: l.baseAddress! + i, outputRight: o.baseAddress! + i, frames: m)
                    i += m
                }
            }}
        }}
        return (outL, outR)
    }

    /// Mean power of both channels over [from, to), in dB.
    static func level(_ y: (left: [Float], right: [Float]), _ range: Range<Int>) -> Double {
        var e = 0.0
        for i in range { e += Double(y.left[i] * y.left[i]) + Double(y.right[i] * y.right[i]) }
        return 10 * log10(max(e / Double(2 * range.count), 1e-30))
    }

    /// Short-window levels (dB) of windows of `window` frames every `hop` frames in `range`.
    static func windowLevels(_ y: (left: [Float], right: [Float]), _ range: Range<Int>,
                             window: Int, hop: Int) -> [(start: Int, level: Double)] {
        stride(from: range.lowerBound, through: range.upperBound - window, by: hop).map {
            ($0, level(y, $0..<($0 + window)))
        }
    }
}
