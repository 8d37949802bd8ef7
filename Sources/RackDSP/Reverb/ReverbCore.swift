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
/// - Injection and outputs: fixed ±1 patterns over the lines (written out in `ReverbCore.render`):
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
/// - Modulation (decays far beyond the room's own only): each line is read through a first-order
///   allpass whose coefficient a slow LFO moves (`ReverbModulation`), so that long tails do not
///   ring metallic; a room at its own decay is never modulated.
/// - DC blocker: a one-pole high-pass at `ReverbTuning.dcBlockerHertz` on both outputs (the
///   network is linear and time-invariant, so this is the same as blocking DC at its input).
///
/// Vectorisation: the network runs in groups of 8 samples. Every delay in the network (lines,
/// diffusers, input diffusers, second output taps, pre-delay, early taps) is at least 8 samples, so a group reads only data written
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
    var room: Room = .default

    init() {}

    init(lineLength: Int, diffuserLength: Int) {
        lineMask = lineLength - 1
        lineStride = lineLength + 8
        diffuserMask = diffuserLength - 1
        diffuserStride = diffuserLength + 8
        let l = ZeroedFloats.allocate(8 * lineStride)
        let d = ZeroedFloats.allocate(8 * diffuserStride)
        let e = ZeroedFloats.allocate(8 * diffuserStride)
        lines = l
        diffusers = d
        inputDiffusers = e
    }

    mutating func deallocate() {
        ZeroedFloats.free(lines)
        ZeroedFloats.free(diffusers)
        ZeroedFloats.free(inputDiffusers)
        lines = nil
        diffusers = nil
        inputDiffusers = nil
    }

    func forEachStateValue(_ body: (Float) -> Void) {
        if let lines { for i in 0..<(8 * lineStride) { body(lines[i]) } }
        if let diffusers { for i in 0..<(8 * diffuserStride) { body(diffusers[i]) } }
        if let inputDiffusers { for i in 0..<(8 * diffuserStride) { body(inputDiffusers[i]) } }
        for v in [lowState, dampState, modulation.previousOutput] { for i in 0..<8 { body(v[i]) } }
        for v in [dcLeft, dcRight] { body(v[0]); body(v[1]) }
    }

    @_noLocks @inline(__always)
    mutating func load(_ coefficients: ReverbCoefficients, room: Room) {
        self.coefficients = coefficients
        self.room = room
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
    /// One function on purpose: split into named stage methods (each `@inline(__always)`, the
    /// same loads, stores and expressions in the same order) the optimised kernel measured
    /// ~25 % slower (`rack render` of 60 s of noise with a 600 s tail: 0.72–0.83 s user
    /// against 0.56–0.62 s), so the stages are the commented blocks below.
    @_noLocks @inline(__always)
    mutating func render(_ history: HistoryView) -> (SIMD8<Float>, SIMD8<Float>) {
        guard let lines, let diffusers, let inputDiffusers else { return (.zero, .zero) }
        let lineWrite = position
        let ringStride = lineStride, ringMask = lineMask

        // Delay-line outputs for the group (older than the group), one vector per sample (the
        // 8 lines across the lanes), modulated for long decays (`ReverbModulation`).
        let lineOutputs = lineOutputs(lines, write: lineWrite)

        // Absorption, sample by sample: low shelf and mid-band gain, then HF damping.
        let absorber = Absorber(crossover: SIMD8(repeating: coefficients.lowCoefficient), gain: coefficients.dampedGain,
                                shelf: coefficients.dampedShelf, pole: coefficients.damping)
        var low = lowState, damped = dampState
        let absorbed = Block8 { j in absorber.process(lineOutputs[j], low: &low, damped: &damped) }
        lowState = low
        dampState = damped

        // Back to one vector per line; the Hadamard feedback across the lines.
        let feedback = hadamard8(absorbed.transposed())

        // Pre-delayed input, smoothed (input bandwidth: a triangle of 2B − 1 taps with weights
        // (B − |j − B + 1|)/B², B = `smoothLength`), plus the alternating anti-denormal offset.
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
        // The anti-denormal offset goes in first, so that it also keeps the input diffusers'
        // rings off the subnormal range once the input stops.
        inputLeft += coefficients.antiDenormal
        inputRight += coefficients.antiDenormal
        // Input diffusion: four lossless allpasses in series per channel (rings 0…3: left,
        // 4…7: right), each over the whole group (every delay ≥ 8).
        let diffuserRingStride = diffuserStride, diffuserRingMask = diffuserMask
        let diffuserWrite = lineWrite & diffuserRingMask
        let inputDiffuser = Diffuser(coefficient: SIMD8(repeating: coefficients.inputDiffusion))
        let inputDelay = coefficients.inputDiffuserDelay
        for stage in 0..<4 {
            let ringL = inputDiffusers + stage &* diffuserRingStride, ringR = inputDiffusers + (stage &+ 4) &* diffuserRingStride
            let delayedLeft = Self.load(ringL + ((diffuserWrite &- Int(inputDelay[stage])) & diffuserRingMask))
            let delayedRight = Self.load(ringR + ((diffuserWrite &- Int(inputDelay[stage &+ 4])) & diffuserRingMask))
            let (ringInLeft, outLeft) = inputDiffuser.process(inputLeft, delayed: delayedLeft)
            let (ringInRight, outRight) = inputDiffuser.process(inputRight, delayed: delayedRight)
            Self.store(ringInLeft, ringL + diffuserWrite)
            Self.store(ringInRight, ringR + diffuserWrite)
            inputLeft = outLeft
            inputRight = outRight
        }

        // Injection: L → lines 0 2 4 6 as + − + −, R → lines 1 3 5 7 as − + − + (the Hadamard
        // rows (h2 + h3)/2 and (h3 − h2)/2). Output taps, per line: L = (+ − + − − + − +),
        // R = (+ + − − − − + +) (rows h5 and h6). Multiplying by ±1 and adding is exactly
        // adding or subtracting.
        let injection = Block8(inputLeft, -inputRight, -inputLeft, inputRight, inputLeft, -inputRight, -inputLeft, inputRight)
        let leftTap = SIMD8<Float>(1, -1, 1, -1, -1, 1, -1, 1)
        let rightTap = SIMD8<Float>(1, 1, -1, -1, -1, -1, 1, 1)

        // Each line through its diffuser, with the writes; then the output sums, accumulated
        // in Hadamard pairs (lines 0 4 1 5 2 6 3 7).
        let diffusion = SIMD8<Float>(repeating: coefficients.diffusion), absorption = coefficients.diffuserAbsorption
        let diffuserDelay = coefficients.diffuserDelay
        let diffuserRingWrite = diffusers + diffuserWrite, lineInput = lines + lineWrite
        let lineInputs = Block8 { i in
            let delayed = Self.load(diffusers + (i &* diffuserRingStride &+ ((diffuserWrite &- Int(diffuserDelay[i])) & diffuserRingMask)))
            let diffuser = Diffuser(coefficient: diffusion, absorption: SIMD8(repeating: absorption[i]))
            let (ring, output) = diffuser.process(feedback[i] + injection[i], delayed: delayed)
            Self.store(ring, diffuserRingWrite + i &* diffuserRingStride)
            Self.store(output, lineInput + i &* ringStride)
            return output
        }
        var left = lineInputs.v0, right = lineInputs.v0
        for step in 1..<8 {
            let i = (step &>> 1) | ((step & 1) &<< 2)
            left += leftTap[i] * lineInputs[i]
            right += rightTap[i] * lineInputs[i]
        }
        // Second taps, part-way along each line (older than the group: every tap ≥ 8), with the
        // patterns of rows h1 (left) and h7 (right), also orthogonal to the injection.
        let midTapDelay = coefficients.midTapDelay
        let midLeftTap = SIMD8<Float>(-1, 1, 1, -1, 1, -1, -1, 1)
        let midRightTap = SIMD8<Float>(1, 1, 1, 1, -1, -1, -1, -1)
        for i in 0..<8 {
            let midTapped = Self.load(lines + (i &* ringStride &+ ((lineWrite &- Int(midTapDelay[i])) & ringMask)))
            left += midLeftTap[i] * midTapped
            right += midRightTap[i] * midTapped
        }
        left *= coefficients.outputScale
        right *= coefficients.outputScale

        // The rings' first 8 floats are mirrored after their end, so that 8 consecutive samples
        // are always contiguous: refresh the mirrors when this group wrote the first 8 (no
        // read of this group touches them: every delay is ≥ 8).
        if lineWrite == 0 {
            for i in 0..<8 {
                let line = lines + i &* ringStride
                Self.store(Self.load(line), line + (ringMask &+ 1))
            }
        }
        if diffuserWrite == 0 {
            for i in 0..<8 {
                let ring = diffusers + i &* diffuserRingStride
                Self.store(Self.load(ring), ring + (diffuserRingMask &+ 1))
                let input = inputDiffusers + i &* diffuserRingStride
                Self.store(Self.load(input), input + (diffuserRingMask &+ 1))
            }
        }
        position = (lineWrite &+ 8) & ringMask

        // Early reflections: taps 0…3 to the left output, 4…7 to the right.
        let earlyDelay = coefficients.earlyDelay, earlyChannel = coefficients.earlyChannel, earlyGain = coefficients.earlyGain
        for i in 0..<4 {
            left += earlyGain[i] * history.load(delay: Int(earlyDelay[i]), channel: Int(earlyChannel[i]))
        }
        for i in 4..<8 {
            right += earlyGain[i] * history.load(delay: Int(earlyDelay[i]), channel: Int(earlyChannel[i]))
        }

        // DC blocker on both outputs (early and late alike).
        left = coefficients.dcBlocker.process(left, state: &dcLeft)
        right = coefficients.dcBlocker.process(right, state: &dcRight)
        return (left, right)
    }
}

// MARK: Bounded-cost clearing (for `Reverb`'s room changes)

extension ReverbCore {
    /// Floats of delay memory that `clear(from:count:)` walks: the lines, then the diffusers,
    /// then the input diffusers (mirrors included).
    var stateFloats: Int { @_noLocks get { 8 * (lineStride + 2 * diffuserStride) } }

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
