import Foundation
import RackDSP

/// The reverb's decay time per octave band as the kernel produces it: the impulse response of
/// `Reverb` (a unit impulse into both inputs, 100 % wet, the room chosen and the shape set
/// before it, as a rack at that state renders), each channel through the octave band-pass
/// (`OctaveBand`), then T30 of the two together: Schroeder backward integration of L² + R²,
/// a least-squares line through the curve from −5 to −35 dB, extrapolated to 60 dB
/// (ISO 3382-1). Measured rather than derived from the absorption's design, so that it shows
/// everything in the loop (delays, diffusers, crossover shelf, damping) and nothing but the
/// kernel's own arithmetic.
public enum DecayResponse {
    /// The octave bands drawn, centre frequencies in Hz.
    public static let bandCentresHz: [Double] = [125, 250, 500, 1_000, 2_000, 4_000, 8_000]

    /// Length (s) of the response rendered for a decay setting: twice the set decay (the
    /// slowest band of any room, its low band, decays at most 1.5 times as long: the room's
    /// calibration times its low ratio, cathedral's 1.49; over twice the decay it falls
    /// ≥ 80 dB, well past the −35 dB the fit needs) plus the pre-delay and 0.3 s for the
    /// early pattern.
    public static func responseSeconds(_ shape: ReverbShape) -> Double {
        2 * shape.decaySeconds + shape.predelaySeconds + 0.3
    }

    /// T30 (s) of each band in `bandCentresHz` for `room` with `shape` (freeze ignored: a
    /// frozen tail does not decay) at `sampleRate` Hz. Nil for a band above the rate's Nyquist,
    /// or whose decay curve does not reach −35 dB.
    public static func octaveDecaySeconds(room: Room, shape: ReverbShape, sampleRate: Double) -> [Double?] {
        var decaying = shape
        decaying.freeze = false
        let (left, right) = impulseResponse(room: room, shape: decaying, sampleRate: sampleRate)
        return bandCentresHz.map { centre in
            guard centre * 2.0.squareRoot() < sampleRate / 2 else { return nil }
            let band = OctaveBand(centreHz: centre, sampleRate: sampleRate)
            return reverberationTime(left: band.filter(left), right: band.filter(right), sampleRate: sampleRate)
        }
    }

    /// The kernel's stereo response to a unit impulse into both inputs.
    static func impulseResponse(room: Room, shape: ReverbShape, sampleRate: Double) -> (left: [Float], right: [Float]) {
        let block = 4_096
        var reverb = Reverb()
        reverb.prepare(sampleRate: sampleRate, maxFrames: block)
        reverb.setRoom(room, crossfadeFrames: 0)
        reverb.setShape(shape)
        let frames = Int((responseSeconds(shape.clamped) * sampleRate).rounded())
        var input = [Float](repeating: 0, count: frames)
        input[0] = 1
        var left = [Float](repeating: 0, count: frames), right = left
        input.withUnsafeBufferPointer { x in
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    var done = 0
                    while done < frames {
                        let n = min(block, frames - done)
                        reverb.process(inputLeft: x.baseAddress! + done, inputRight: x.baseAddress! + done,
                                       outputLeft: l.baseAddress! + done, outputRight: r.baseAddress! + done, frames: n)
                        done += n
                    }
                }
            }
        }
        return (left, right)
    }

    /// T30 (s) from the Schroeder curve of L² + R²; nil when it does not reach −35 dB or does
    /// not fall.
    static func reverberationTime(left: [Double], right: [Double], sampleRate: Double) -> Double? {
        // Backward integration: remaining[i] = Σ_{k ≥ i} (L² + R²).
        var remaining = [Double](repeating: 0, count: left.count)
        var sum = 0.0
        for i in stride(from: left.count - 1, through: 0, by: -1) {
            sum += left[i] * left[i] + right[i] * right[i]
            remaining[i] = sum
        }
        guard sum > 0 else { return nil }
        let upper = sum * pow(10, -5.0 / 10), lower = sum * pow(10, -35.0 / 10)
        guard let start = remaining.firstIndex(where: { $0 <= upper }),
              let end = remaining.firstIndex(where: { $0 <= lower }), end > start + 1 else { return nil }
        // Least squares through (t, level in dB) over start..<end.
        var st = 0.0, sl = 0.0, stt = 0.0, stl = 0.0
        for i in start..<end {
            let t = Double(i) / sampleRate, level = 10 * log10(remaining[i] / sum)
            st += t; sl += level; stt += t * t; stl += t * level
        }
        let count = Double(end - start)
        let slope = (count * stl - st * sl) / (count * stt - st * st)   // dB per second
        return slope < 0 ? -60 / slope : nil
    }
}
