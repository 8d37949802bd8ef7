/// The stages of the reverb's loop (`ReverbCore`), named as zita-rev1 names them (F. Adriaensen,
/// zita-rev1: `Diff1`, `Filt1` and the feedback matrix of its `process`), each over a group of
/// 8 samples: `Diffuser` (the allpass in each line), `Absorber` (the per-line decay filters) and
/// `hadamard8` (the lossless feedback matrix).

/// Schroeder allpass diffuser of one line (zita-rev1's `Diff1`): with M the diffuser's delay,
/// w[n] = f[n] + g·w[n−M] goes into the diffuser's ring, v[n] = w[n−M] − g·w[n] into the line.
/// M ≥ 8, so a group of 8 samples reads only w older than the group.
struct Diffuser {
    /// The allpass coefficient g, in every lane (0.5…0.75: `RoomDefinition.diffusion`).
    var coefficient: SIMD8<Float>

    @_noLocks @inline(__always)
    init(coefficient: SIMD8<Float>) { self.coefficient = coefficient }

    /// One group: `input` is f, `delayed` is w[n−M]; returns w (`ring`) and v (`output`).
    @_noLocks @inline(__always)
    func process(_ input: SIMD8<Float>, delayed: SIMD8<Float>)
        -> (ring: SIMD8<Float>, output: SIMD8<Float>) {
        let w = input + coefficient * delayed
        let v = delayed - coefficient * w
        return (w, v)
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
