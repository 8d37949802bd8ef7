import Foundation

/// Integrated loudness as ITU-R BS.1770-4 defines it (EBU R128's "I", EBU Tech 3341): each
/// channel K-weighted (a high-shelf pre-filter, then the RLB high-pass), mean squares over
/// 400 ms blocks overlapping by 75 %, summed over channels with their weights, then gated
/// twice: an absolute gate at −70 LUFS and a relative gate 10 LU below the loudness of the
/// blocks that passed the first. Checked against the standard's coefficients and Tech 3341's
/// test signals in IntegratedLoudnessTests.
public enum IntegratedLoudness {
    /// A biquad's coefficients, normalised so a0 = 1.
    public struct Biquad: Sendable, Equatable {
        public var b0, b1, b2, a1, a2: Double
    }

    /// Block length, seconds (BS.1770-4 §2.8: T_g = 400 ms).
    public static let blockSeconds = 0.4
    /// Blocks start this far apart, seconds (75 % overlap).
    public static let hopSeconds = 0.1
    /// Absolute gate, LUFS (BS.1770-4 Γ_a).
    public static let absoluteGateLUFS = -70.0
    /// Relative gate below the absolutely gated loudness, LU (BS.1770-4 Γ_r).
    public static let relativeGateLU = -10.0
    /// The −0.691 dB of BS.1770's loudness formula: makes a 997 Hz sine read its RMS level.
    public static let offsetDB = -0.691

    /// The two K-weighting stages at `rate` Hz: the shelf (stage 1) and the RLB high-pass
    /// (stage 2), from their analogue poles and gains (the derivation libebur128 and pyloudnorm
    /// use), which reproduce the standard's 48 kHz tables.
    public static func kWeighting(sampleRate rate: Double) -> (shelf: Biquad, highPass: Biquad) {
        // Stage 1: high shelf of +4 dB above about 1.7 kHz.
        let shelfHz = 1681.974450955533, shelfGainDB = 3.999843853973347, shelfQ = 0.7071752369554196
        let k1 = tan(Double.pi * shelfHz / rate)
        let vh = pow(10, shelfGainDB / 20)
        let vb = pow(vh, 0.4996667741545416)
        let d1 = 1 + k1 / shelfQ + k1 * k1
        let shelf = Biquad(b0: (vh + vb * k1 / shelfQ + k1 * k1) / d1, b1: 2 * (k1 * k1 - vh) / d1,
                           b2: (vh - vb * k1 / shelfQ + k1 * k1) / d1,
                           a1: 2 * (k1 * k1 - 1) / d1, a2: (1 - k1 / shelfQ + k1 * k1) / d1)
        // Stage 2: the revised low-frequency B-curve (RLB), a second-order high-pass at 38 Hz.
        let highPassHz = 38.13547087602444, highPassQ = 0.5003270373238773
        let k2 = tan(Double.pi * highPassHz / rate)
        let d2 = 1 + k2 / highPassQ + k2 * k2
        let highPass = Biquad(b0: 1, b1: -2, b2: 1,
                              a1: 2 * (k2 * k2 - 1) / d2, a2: (1 - k2 / highPassQ + k2 * k2) / d2)
        return (shelf, highPass)
    }

    /// The integrated loudness of `channels` (each the same length) in LUFS, each channel
    /// weighted by `weights` (default 1.0 each: left, right, centre; BS.1770 gives surround
    /// channels 1.41). −∞ when no block passes the gates (silence, or shorter than a block).
    public static func lufs(_ channels: [[Float]], sampleRate rate: Double, weights: [Double]? = nil) -> Double {
        let gains = weights ?? [Double](repeating: 1, count: channels.count)
        let blockPowers = weightedBlockPowers(channels, sampleRate: rate, weights: gains)
        let absolutelyGated = blockPowers.filter { loudness(ofPower: $0) > absoluteGateLUFS }
        guard !absolutelyGated.isEmpty else { return -.infinity }
        let relativeGate = loudness(ofPower: mean(absolutelyGated)) + relativeGateLU
        let gated = absolutelyGated.filter { loudness(ofPower: $0) > relativeGate }
        guard !gated.isEmpty else { return -.infinity }
        return loudness(ofPower: mean(gated))
    }

    /// The loudness of a weighted mean-square power, LUFS.
    public static func loudness(ofPower power: Double) -> Double { offsetDB + 10 * log10(power) }

    /// Each 400 ms block's Σ G_i · z_i (the weighted sum of the channels' K-weighted mean
    /// squares), blocks every 100 ms, only whole blocks.
    static func weightedBlockPowers(_ channels: [[Float]], sampleRate rate: Double, weights: [Double]) -> [Double] {
        let blockFrames = Int((blockSeconds * rate).rounded())
        let hopFrames = Int((hopSeconds * rate).rounded())
        let frames = channels.map(\.count).min() ?? 0
        guard frames >= blockFrames else { return [] }
        let blockCount = (frames - blockFrames) / hopFrames + 1
        var powers = [Double](repeating: 0, count: blockCount)
        for (channel, weight) in zip(channels, weights) {
            let energy = cumulativeWeightedSquares(channel, sampleRate: rate)
            for block in 0..<blockCount {
                let start = block * hopFrames
                powers[block] += weight * (energy[start + blockFrames] - energy[start]) / Double(blockFrames)
            }
        }
        return powers
    }

    /// Running sums of the K-weighted channel's squares: element n is the sum of the first n.
    static func cumulativeWeightedSquares(_ channel: [Float], sampleRate rate: Double) -> [Double] {
        let (shelf, highPass) = kWeighting(sampleRate: rate)
        var sums = [Double](repeating: 0, count: channel.count + 1)
        var shelfState = BiquadState(), highPassState = BiquadState()
        var total = 0.0
        channel.withUnsafeBufferPointer { input in
            sums.withUnsafeMutableBufferPointer { output in
                for n in 0..<input.count {
                    let weighted = highPassState.process(shelfState.process(Double(input[n]), shelf), highPass)
                    total += weighted * weighted
                    output[n + 1] = total
                }
            }
        }
        return sums
    }

    private static func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
}

/// A biquad's two delay elements (transposed direct form II).
private struct BiquadState {
    var z1 = 0.0, z2 = 0.0

    mutating func process(_ x: Double, _ c: IntegratedLoudness.Biquad) -> Double {
        let y = c.b0 * x + z1
        z1 = c.b1 * x - c.a1 * y + z2
        z2 = c.b2 * x - c.a2 * y
        return y
    }
}
