/// One FDN: eight delay lines with their diffusers and filters, running one room (the kernel of
/// `Reverb`, which owns the input history and crossfades two of these on a room change).
///
/// Signal flow (the eight lines side by side):
///
///     in L/R ─► history ─┬─► early taps, 4 per side ─────────────────────────────────────┐
///                        └─► pre-delay ─► smoothing ─► input diffusers ─► inject ─┐        │
///          ┌───────────────────────────────────────────►(+)─► absorbent diffuser ─┬─► output taps ─(+)─► DC blocker ─► out L/R
///          │                                                                      ▼   (at the line's input and part-way along)
///          └── Hadamard ◄── HF damping ◄── low shelf · g ◄── delay line ◄─────────┘
///
/// - Lines: loop delay τ_i = diffuser delay + plain delay, distinct primes per room (Schroeder);
///   the input diffusers' delays are distinct primes too.
/// - Absorption per line (Jot & Chaigne 1991): the loop's mid-band gain is 10^(−3·τ_i/T60mid),
///   taken partly inside the diffuser (a_i = 10^(−3·M_i/T60mid) over its own delay M_i: an
///   absorbent allpass, so a sound that circulates inside the diffuser loses 60 dB per T60 like
///   any other: no mode outlasts the rest) and the rest in the line; a one-pole low shelf lifts
///   the loop below the crossover to 10^(−3·τ_i/T60low) (zita-rev1's rtlow/rtmid split); a
///   one-pole low-pass with pole b_i makes the gain at the damping frequency the square of the
///   mid-band gain, i.e. T60 there is half the mid-band T60 (zita-rev1's "fdamp").
/// - Feedback matrix: 8×8 Sylvester–Hadamard / √8 (orthogonal, lossless), three butterfly stages;
///   the 1/√8 is folded into the line gains.
/// - Diffuser: absorbent Schroeder allpass in each line, d = a·w[n−M], w[n] = f[n] + g·d,
///   v[n] = d − g·w[n].
/// - Input bandwidth: the late reverb's input is smoothed by a short triangular FIR (¼, ½, ¼ at
///   48 kHz; `ReverbTuning.inputSmoothingSeconds`), after Dattorro's plate ("Effect Design", 1997).
/// - Input diffusion: four lossless allpasses in series on each input channel
///   (`ReverbTuning.inputDiffuserSeconds`, different on the two sides), so the lines are fed a
///   dense burst and the echo density builds up within the first loop.
/// - Early reflections: four taps per output side on the input history (`ReverbTuning`).
/// - Injection and outputs: fixed ±1 patterns over the lines (written out in `ReverbRings.writeLines` and `outputTaps`):
///   the left input feeds lines 0, 2, 4, 6 with signs (+ − + −), the right input lines 1, 3, 5, 7
///   with (− + − +); out L = (+ − + − − + − +)·v, out R = (+ + − − − − + +)·v. As vectors:
///   in_L = (h2 + h3)/2, in_R = (h3 − h2)/2, out_L = h5, out_R = h6 (h_k: rows of the Hadamard
///   matrix), all mutually orthogonal: the outputs are uncorrelated mixes of the lines and a mono
///   input has no path from the diffusers' feed-forward term straight to the outputs. A second
///   tap reads every line `midTapDelay` behind its input (the same delay for all lines), with
///   the patterns −h4 (left) and h7 (right): orthogonal to each other and to the injection, and
///   chosen so that, line by line, out_L·mid_R + mid_L·out_R = 0 (no L/R correlation through a
///   line's own delayed copy). The outputs are scaled per room to a common energy gain
///   (`ReverbTuning.lateEnergy`), so rooms are about equally loud.
/// - Modulation (decays far beyond the room's own only): the line outputs are rotated in pairs
///   by slowly wandering angles (`ReverbModulation`: a time-varying orthogonal mixing), so that
///   long tails do not ring metallic; a room at its own decay is never modulated.
/// - Second diffusers (the same decays only): the first `secondDiffuserDelay` samples of each
///   line's plain delay are a lossless allpass (coefficient `ReverbModulation.secondDiffusion`,
///   growing with the modulation's depth), so the first returns of a long, weakly absorbed loop
///   come back smeared rather than as copies of the input burst (cathedral at 20 s mixed at
///   377 ms with the plain delay, 168 ms with them). The line ring itself is the allpass's
///   delay: it holds w = v + g·w[n−M] (M = `secondDiffuserDelay`), and every read of the line
///   at delay D takes the allpass's output D − M later, w[n−D] − g·w[n−D+M] (the second output
///   tap too; `ReverbRings.secondDiffuserRead`). At g = 0 the ring holds v and the reads are the plain ones: the loops, the taps
///   and the output are the design's, byte for byte, at the design's cost.
/// - DC blocker: a one-pole high-pass at `ReverbTuning.dcBlockerHertz` on both outputs (the
///   network is linear and time-invariant, so this is the same as blocking DC at its input).
///
/// Vectorisation: the network runs in groups of 8 samples. Every delay in the network (lines,
/// diffusers, second diffusers, input diffusers, second output taps, pre-delay, early taps) is at least 8 samples, so a group reads only data written
/// before it: each line's 8 samples are one contiguous vector load, the diffusers, injection,
/// Hadamard, outputs and stores all work on such per-line vectors, and only the two recursive
/// one-pole filters run sample by sample — with the 8 lines across a `SIMD8<Float>`, between two
/// 8×8 transposes. A group's output is computed when its first input sample arrives (it does not
/// depend on that group's input) and handed out sample by sample, so the result does not depend
/// on how the caller splits its blocks, and there is no added latency.
///
/// Denormals: an offset of ±`ReverbTuning.antiDenormal` (1e-20), alternating in sign from sample
/// to sample, is added to the input diffusers' input (hence to every line's input), so the
/// network settles on a ~1e-20 floor (−400 dB) instead of decaying into the subnormal range;
/// input samples below 1e-30 in magnitude are flushed to 0, and so are DC blocker outputs.
/// Every state and output value is therefore 0 or a normal float.
///
/// Realtime: `render`, `load`, `clearAll` and `clear(from:count:)` are `@_noLocks`; the buffers are
/// made by `init(lineLength:diffuserLength:)` (from `Reverb.prepare`).
struct ReverbCore {
    /// Eight delay rings of `lineMask + 1` floats plus an 8-float mirror of their start (so any
    /// 8 consecutive samples are contiguous), line i at i·`lineStride`.
    var lines: UnsafeMutablePointer<Float>? = nil
    /// The same for the eight diffuser delays.
    var diffusers: UnsafeMutablePointer<Float>? = nil
    /// The same for the eight input diffusers (four per input channel), also `diffuserStride`
    /// apart (`ReverbCoefficients.longestDiffuser` covers their delays too).
    var inputDiffusers: UnsafeMutablePointer<Float>? = nil
    var lineMask = 0
    var lineStride = 0
    var diffuserMask = 0
    var diffuserStride = 0
    /// Write position of the next group in the line rings (a multiple of 8); the diffusers use
    /// its low bits.
    var position = 0
    /// Crossover low-pass and HF damping low-pass states, one lane per line.
    var lowState = SIMD8<Float>(repeating: 0)
    var dampState = SIMD8<Float>(repeating: 0)
    /// DC blocker states (x₋₁, y₋₁) of the left and right outputs.
    var dcLeft = SIMD2<Float>(repeating: 0)
    var dcRight = SIMD2<Float>(repeating: 0)
    /// The loop delays' slow modulation (long decays only).
    var modulation = ReverbModulation()
    /// The room's coefficients (a copy from the table).
    var coefficients = ReverbCoefficients()
    /// The absorption the next group moves from (nil: it keeps `coefficients`' own).
    var absorptionFrom: ReverbAbsorptionGlide? = nil
    var room: Room = .default

    init() {}

    /// A network on `memory`: `floats(lineLength:diffuserLength:)` zeroed floats that its
    /// owner (`ReverbMemory`) keeps for as long as the network is used.
    init(lineLength: Int, diffuserLength: Int, memory: UnsafeMutablePointer<Float>) {
        lineMask = lineLength - 1
        lineStride = lineLength + 8
        diffuserMask = diffuserLength - 1
        diffuserStride = diffuserLength + 8
        lines = memory
        diffusers = memory + 8 * lineStride
        inputDiffusers = memory + 8 * (lineStride + diffuserStride)
    }

    /// Floats of a network's delay memory: eight lines, eight diffusers and eight input
    /// diffusers, each ring with its 8-float mirror.
    static func floats(lineLength: Int, diffuserLength: Int) -> Int {
        8 * (lineLength + 8) + 16 * (diffuserLength + 8)
    }

    func forEachStateValue(_ body: (Float) -> Void) {
        if let lines { for i in 0..<(8 * lineStride) { body(lines[i]) } }
        if let diffusers { for i in 0..<(8 * diffuserStride) { body(diffusers[i]) } }
        if let inputDiffusers { for i in 0..<(8 * diffuserStride) { body(inputDiffusers[i]) } }
        for v in [lowState, dampState] { for i in 0..<8 { body(v[i]) } }
        for v in [dcLeft, dcRight] { body(v[0]); body(v[1]) }
    }

    @_noLocks @inline(__always)
    mutating func load(_ coefficients: ReverbCoefficients, room: Room) {
        self.coefficients = coefficients
        self.room = room
        absorptionFrom = nil
        modulation.load(sampleRate: coefficients.sampleRate, lineDelay: coefficients.lineDelay,
                        diffuserDelay: coefficients.diffuserDelay)
    }

    /// Silence: every buffer and filter state to 0.
    @_noLocks @inline(__always)
    mutating func clearAll() {
        lines?.update(repeating: 0, count: 8 * lineStride)
        diffusers?.update(repeating: 0, count: 8 * diffuserStride)
        inputDiffusers?.update(repeating: 0, count: 8 * diffuserStride)
        clearFilterStates()
    }

    /// The absorbers' and the DC blockers' states to 0.
    @_noLocks @inline(__always)
    mutating func clearFilterStates() {
        lowState = .zero
        dampState = .zero
        dcLeft = .zero
        dcRight = .zero
        modulation.reset()
    }

    @_noLocks @inline(__always)
    static func load(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    @_noLocks @inline(__always)
    static func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }

    /// One 8-sample group: returns the (left, right) output of the group that starts at the
    /// history's write index. Needs every delay ≥ 8 (guaranteed by `ReverbCoefficients`).
    /// The stages are `@inline(__always)` functions of values and of the rings' pointers
    /// (`ReverbRings`), never of `self`: the optimised kernel then keeps the loop's state in
    /// registers as the single function did (stage methods on `self` measured ~25 % slower).
    @_noLocks @inline(__always)
    mutating func render(_ history: HistoryView) -> (SIMD8<Float>, SIMD8<Float>) {
        guard let lines, let diffusers, let inputDiffusers else { return (.zero, .zero) }
        let rings = ReverbRings(lines: lines, diffusers: diffusers, inputDiffusers: inputDiffusers,
                                lineStride: lineStride, lineMask: lineMask, diffuserStride: diffuserStride,
                                diffuserMask: diffuserMask, lineWrite: position)
        let lineOutputs = lineOutputs(rings)
        var low = lowState, damped = dampState
        let from = absorptionFrom
        absorptionFrom = nil
        let absorbed: Block8
        if let from {
            absorbed = Self.absorb(lineOutputs, from: from, coefficients, low: &low, damped: &damped)
        } else {
            absorbed = Self.absorb(lineOutputs, coefficients, low: &low, damped: &damped)
        }
        lowState = low
        dampState = damped
        let feedback = hadamard8(absorbed.transposed())
        let (smoothedLeft, smoothedRight) = Self.smoothedInput(history, coefficients)
        let (inputLeft, inputRight) = rings.diffuseInput(smoothedLeft, smoothedRight, coefficients)
        let secondDiffusion = modulation.secondDiffusions
        let lineInputs = rings.writeLines(feedback: feedback, inputLeft: inputLeft, inputRight: inputRight,
                                          secondDiffusion: secondDiffusion, absorptionFrom: from?.diffuserAbsorption,
                                          coefficients)
        var (left, right) = rings.outputTaps(lineInputs, secondDiffusion: secondDiffusion, coefficients)
        rings.refreshMirrors()
        position = (rings.lineWrite &+ 8) & rings.lineMask
        Self.addEarlyReflections(history, coefficients, left: &left, right: &right)
        // DC blocker on both outputs (early and late alike).
        left = coefficients.dcBlocker.process(left, state: &dcLeft)
        right = coefficients.dcBlocker.process(right, state: &dcRight)
        return (left, right)
    }

    /// Absorption, sample by sample: low shelf and mid-band gain, then HF damping (`low`,
    /// `damped`: the filters' states, one lane per line, updated).
    @_noLocks @inline(__always)
    static func absorb(_ lineOutputs: Block8, _ coefficients: ReverbCoefficients,
                       low: inout SIMD8<Float>, damped: inout SIMD8<Float>) -> Block8 {
        let absorber = Absorber(crossover: SIMD8(repeating: coefficients.lowCoefficient), gain: coefficients.dampedGain,
                                shelf: coefficients.dampedShelf, pole: coefficients.damping)
        var lowState = low, dampedState = damped
        let absorbed = Block8 { j in absorber.process(lineOutputs[j], low: &lowState, damped: &dampedState) }
        low = lowState
        damped = dampedState
        return absorbed
    }

    /// `absorb`, with every coefficient moving from `from`'s to `coefficients`' across the group
    /// (`ReverbAbsorptionGlide`).
    @_noLocks @inline(__always)
    static func absorb(_ lineOutputs: Block8, from: ReverbAbsorptionGlide, _ coefficients: ReverbCoefficients,
                       low: inout SIMD8<Float>, damped: inout SIMD8<Float>) -> Block8 {
        let crossover = SIMD8<Float>(repeating: coefficients.lowCoefficient)
        let gainStep = (coefficients.dampedGain - from.dampedGain) * 0.125
        let shelfStep = (coefficients.dampedShelf - from.dampedShelf) * 0.125
        let poleStep = (coefficients.damping - from.damping) * 0.125
        var lowState = low, dampedState = damped
        let absorbed = Block8 { j in
            let k = Float(j &+ 1)
            let absorber = Absorber(crossover: crossover, gain: from.dampedGain + k * gainStep,
                                    shelf: from.dampedShelf + k * shelfStep, pole: from.damping + k * poleStep)
            return absorber.process(lineOutputs[j], low: &lowState, damped: &dampedState)
        }
        low = lowState
        damped = dampedState
        return absorbed
    }

    /// Pre-delayed input, smoothed (input bandwidth: a triangle of 2B − 1 taps with weights
    /// (B − |j − B + 1|)/B², B = `smoothLength`), plus the alternating anti-denormal offset
    /// (first, so that it also keeps the input diffusers' rings off the subnormal range once
    /// the input stops).
    @_noLocks @inline(__always)
    static func smoothedInput(_ history: HistoryView, _ coefficients: ReverbCoefficients) -> (SIMD8<Float>, SIMD8<Float>) {
        let preDelay = coefficients.preDelay, boxcar = coefficients.smoothLength
        var inputLeft: SIMD8<Float>, inputRight: SIMD8<Float>
        if boxcar == 2 {                                     // (¼, ½, ¼), 44.1/48 kHz
            inputLeft = 0.25 * (history.load(delay: preDelay, channel: 0) + history.load(delay: preDelay &+ 2, channel: 0))
                + 0.5 * history.load(delay: preDelay &+ 1, channel: 0)
            inputRight = 0.25 * (history.load(delay: preDelay, channel: 1) + history.load(delay: preDelay &+ 2, channel: 1))
                + 0.5 * history.load(delay: preDelay &+ 1, channel: 1)
        } else {
            inputLeft = .zero
            inputRight = .zero
            let scale = 1 / Float(boxcar &* boxcar)
            var j = 0
            while j < 2 &* boxcar &- 1 {
                let weight = Float(boxcar &- abs(j &- boxcar &+ 1)) * scale
                inputLeft += weight * history.load(delay: preDelay &+ j, channel: 0)
                inputRight += weight * history.load(delay: preDelay &+ j, channel: 1)
                j &+= 1
            }
        }
        return (inputLeft + coefficients.antiDenormal, inputRight + coefficients.antiDenormal)
    }

    /// Early reflections: taps 0…3 to the left output, 4…7 to the right.
    @_noLocks @inline(__always)
    static func addEarlyReflections(_ history: HistoryView, _ coefficients: ReverbCoefficients,
                                    left: inout SIMD8<Float>, right: inout SIMD8<Float>) {
        let earlyDelay = coefficients.earlyDelay, earlyChannel = coefficients.earlyChannel, earlyGain = coefficients.earlyGain
        for i in 0..<4 {
            left += earlyGain[i] * history.load(delay: Int(earlyDelay[i]), channel: Int(earlyChannel[i]))
        }
        for i in 4..<8 {
            right += earlyGain[i] * history.load(delay: Int(earlyDelay[i]), channel: Int(earlyChannel[i]))
        }
    }
}

// MARK: Bounded-cost clearing (for `Reverb`'s room changes)

extension ReverbCore {
    /// Floats of delay memory that `clear(from:count:)` walks: the lines, then the diffusers,
    /// then the input diffusers (mirrors included).
    var stateFloats: Int { @_noLocks get { 8 &* (lineStride &+ 2 &* diffuserStride) } }

    /// Zeroes floats [from, from + count) of the delay memory (lines, then diffusers, then
    /// input diffusers; `from + count ≤ stateFloats`) and, with `from == 0`, the filter and DC
    /// blocker states: a full clear spread over several calls, each costing at
    /// most `count` stores.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func clear(from: Int, count: Int) {
        guard let lines, let diffusers, let inputDiffusers, count > 0 else { return }
        if from == 0 { clearFilterStates() }
        let lineFloats = 8 * lineStride, diffuserFloats = 8 * diffuserStride
        var start = from, n = count
        if start < lineFloats {
            let m = min(n, lineFloats - start)
            (lines + start).update(repeating: 0, count: m)
            start += m
            n -= m
        }
        if n > 0 && start < lineFloats + diffuserFloats {
            let m = min(n, lineFloats + diffuserFloats - start)
            (diffusers + (start - lineFloats)).update(repeating: 0, count: m)
            start += m
            n -= m
        }
        if n > 0 { (inputDiffusers + (start - lineFloats - diffuserFloats)).update(repeating: 0, count: n) }
    }
}
