/// The stages of the reverb's loop (`ReverbCore`), named as zita-rev1 names them (F. Adriaensen,
/// zita-rev1: `Diff1`, `Filt1` and the feedback matrix of its `process`), each over a group of
/// 8 samples: `Diffuser` (the allpass in each line), `Absorber` (the per-line decay filters) and
/// `hadamard8` (the lossless feedback matrix).

/// Schroeder allpass diffuser (zita-rev1's `Diff1`), made absorbent (J. Dattorro, "Effect
/// Design, Part 1", JAES 45(9), 1997; W. G. Gardner's nested allpasses): with M the diffuser's
/// delay and a its absorption, the delayed value d = a·w[n−M] is the ring's output,
/// w[n] = f[n] + g·d goes into the ring and v[n] = d − g·w[n] is the output. With a = 1 it is
/// the lossless allpass (the input diffusers); in the loop a = 10^(−3·M/T60), the decay over the
/// diffuser's own delay, so a sound that circulates k extra times inside the diffuser is
/// attenuated for the time it spends there (every path through the loop loses 60 dB per T60,
/// whatever the allpass's group delay at its frequency: no mode outlasts the others).
/// M ≥ 8, so a group of 8 samples reads only w older than the group.
struct Diffuser {
    /// The allpass coefficient g, in every lane (0.5…0.75: `RoomDefinition.diffusion`).
    var coefficient: SIMD8<Float>
    /// The absorption a over the diffuser's delay (1: lossless).
    var absorption: SIMD8<Float>

    @_noLocks @inline(__always)
    init(coefficient: SIMD8<Float>, absorption: SIMD8<Float> = SIMD8(repeating: 1)) {
        self.coefficient = coefficient
        self.absorption = absorption
    }

    /// One group: `input` is f, `delayed` is w[n−M]; returns w (`ring`) and v (`output`).
    @_noLocks @inline(__always)
    func process(_ input: SIMD8<Float>, delayed: SIMD8<Float>)
        -> (ring: SIMD8<Float>, output: SIMD8<Float>) {
        let d = absorption * delayed
        let w = input + coefficient * d
        let v = d - coefficient * w
        return (w, v)
    }
}

/// One-pole DC blocker (high-pass) y[n] = c·(x[n] − x[n−1]) + R·y[n−1], R = e^(−2π·f_c/fs),
/// c = (1 + R)/2 (unity gain at Nyquist, exactly 0 at DC), run on a group of 8 samples at once
/// as a prefix scan: d = c·(x − x shifted by one), then three steps s += R^k·(s shifted by k)
/// for k = 1, 2, 4 give s_j = Σ_{i≤j} R^(j−i)·d_i, and y_j = s_j + R^(j+1)·y₋₁. Outputs below
/// `flushBelow` (1e-30) in magnitude are set to 0: once its input stops, the recursion would
/// otherwise decay through the subnormal range (R^n·y).
struct DCBlocker {
    /// c, R, R², R⁴ and R^(j+1) in lane j.
    var gain: Float
    var pole: Float
    var pole2: Float
    var pole4: Float
    var carry: SIMD8<Float>
    /// `ReverbTuning.inputFlush`, copied (a `static let` read is a call on the render path).
    var flushBelow: Float = ReverbTuning.inputFlush

    /// All zero (an unprepared core's: it outputs 0).
    init() {
        gain = 0
        pole = 0
        pole2 = 0
        pole4 = 0
        carry = .zero
    }

    /// The blocker with its −3 dB corner at `cutoff` Hz (approximately: R = e^(−2π·f_c/fs)) at
    /// `fs` Hz. Not realtime.
    init(cutoff: Double, sampleRate fs: Double) {
        let r = RackMath.exp2(-2 * RackMath.pi * cutoff / fs / RackMath.ln2)
        gain = Float((1 + r) / 2)
        pole = Float(r)
        pole2 = Float(r * r)
        pole4 = Float(r * r * r * r)
        var carry = SIMD8<Float>(repeating: 0)
        var p = r
        for j in 0..<8 {
            carry[j] = Float(p)
            p *= r
        }
        self.carry = carry
    }

    /// One group of one channel; `state` holds (x₋₁, y₋₁) and is updated.
    @_noLocks @inline(__always)
    func process(_ x: SIMD8<Float>, state: inout SIMD2<Float>) -> SIMD8<Float> {
        let previous = SIMD8<Float>(state[0], x[0], x[1], x[2], x[3], x[4], x[5], x[6])
        let d = gain * (x - previous)
        var s = d + pole * SIMD8<Float>(0, d[0], d[1], d[2], d[3], d[4], d[5], d[6])
        s += pole2 * SIMD8<Float>(0, 0, s[0], s[1], s[2], s[3], s[4], s[5])
        s += pole4 * SIMD8<Float>(lowHalf: .zero, highHalf: s.lowHalf)
        var y = s + carry * state[1]
        let t = flushBelow
        y = y.replacing(with: 0, where: (y .< t) .& (y .> -t))
        state = SIMD2(x[7], y[7])
        return y
    }
}

/// The absorption filters of all 8 lines (zita-rev1's `Filt1`), one lane per line, run sample by
/// sample: the crossover low-pass lo = (1−a)·lo + a·x feeds the low shelf y = gain·x + shelf·lo,
/// then the HF damping one-pole hf = (1−b)·y + b·hf₋₁, with (1−b) folded into `gain` and `shelf`
/// (Jot & Chaigne 1991; the coefficients are made by `ReverbCoefficients`).
struct Absorber {
    /// One-pole coefficient a of the crossover low-pass, 1 − e^(−2π·f_c/fs), in every lane.
    var crossover: SIMD8<Float>
    /// (1 − b)·mid-band gain of each line (including the Hadamard's 1/√8).
    var gain: SIMD8<Float>
    /// (1 − b)·low-shelf term of each line.
    var shelf: SIMD8<Float>
    /// Pole b of each line's HF damping low-pass.
    var pole: SIMD8<Float>

    @_noLocks @inline(__always)
    init(crossover: SIMD8<Float>, gain: SIMD8<Float>, shelf: SIMD8<Float>, pole: SIMD8<Float>) {
        (self.crossover, self.gain, self.shelf, self.pole) = (crossover, gain, shelf, pole)
    }

    /// One sample of the 8 lines: `x` in, `low` (crossover state) and `damped` (HF state)
    /// updated; returns the new `damped`.
    @_noLocks @inline(__always)
    func process(_ x: SIMD8<Float>, low: inout SIMD8<Float>, damped: inout SIMD8<Float>)
        -> SIMD8<Float> {
        low = (1 - crossover) * low + crossover * x
        damped = gain * x + shelf * low + pole * damped
        return damped
    }
}

/// The 8×8 Sylvester–Hadamard transform (unnormalised: the 1/√8 is folded into the line gains)
/// of eight per-line vectors: line i of the result is Σ_j H8[i][j]·line j, H8 orthogonal up to
/// its scale, so the feedback is lossless. Three butterfly stages, pairing lines i and i ^ 1,
/// then i ^ 2, then i ^ 4 (in this order: the additions are not reassociated).
@_noLocks @inline(__always)
func hadamard8(_ x: Block8) -> Block8 {
    let a0 = x.v0 + x.v1, a1 = x.v0 - x.v1, a2 = x.v2 + x.v3, a3 = x.v2 - x.v3
    let a4 = x.v4 + x.v5, a5 = x.v4 - x.v5, a6 = x.v6 + x.v7, a7 = x.v6 - x.v7
    let b0 = a0 + a2, b1 = a1 + a3, b2 = a0 - a2, b3 = a1 - a3
    let b4 = a4 + a6, b5 = a5 + a7, b6 = a4 - a6, b7 = a5 - a7
    return Block8(b0 + b4, b1 + b5, b2 + b6, b3 + b7, b0 - b4, b1 - b5, b2 - b6, b3 - b7)
}
