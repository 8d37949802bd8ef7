/// Slow modulation of the loop delays, for decays far beyond a room's own: a first-order
/// allpass in each line (a fractional delay, T. I. Laakso et al., "Splitting the unit delay",
/// IEEE SP Magazine 13(1), 1996), whose coefficient η a slow LFO moves, so that the modes of the
/// network wander in frequency and no mode stands out of a long tail as a metallic ring (the
/// usual cure: J. Dattorro, "Effect Design, Part 1", JAES 45(9), 1997, modulates the delays of
/// his tank). An allpass keeps the loop's gain at every frequency: decay and damping stay what
/// the absorption makes them.
///
/// The allpass y[n] = η·(x[n] − y[n−1]) + x[n−1] reads the line one sample later than the plain
/// read; at η = 0 it is exactly the plain read (y[n] = x[n−1]). Its low-frequency delay
/// (1 − η)/(1 + η) samples swings between 0.54 and 19 samples at full depth (η from −0.9 to
/// +0.3), less at higher frequencies.
///
/// When: a network's modes overlap less as its decay grows (modal overlap = total loop delay
/// × mode bandwidth 2.2/T60, after Schroeder). Every room at its own decay has an overlap of
/// at least 1.02 (cathedral; smallRoom 2.65); below `unmodulatedOverlap` (1) the depth grows
/// with the missing overlap, full at half of it. Rooms at their own values are therefore never
/// modulated (their output is bit-identical to the unmodulated network).
///
/// Determinism: the LFO phases are a function of the number of 8-sample groups since the network
/// was cleared (fixed starting phases plus a fixed step per group, integer phase, wrapping): the
/// modulation is a function of the absolute sample position since the clear, whatever the block
/// sizes. Within a group η is constant (it moves by at most ~1e-3 per group). Unmodulated, a
/// group costs the count's increment and a compare: the LFO is computed only when modulated.
struct ReverbModulation {
    /// LFO rate of each line (Hz): spread over 1.2…2.1 Hz, no two in a simple ratio. (At
    /// 0.47…0.83 Hz a 1.4 s stretch of smallRoom's tail at 20 s still rang +5.3 dB at 2.6 kHz;
    /// at these +1.8 dB. The pitch swing at full depth is a few cents.)
    static var ratesHz: SIMD8<Double> {
        @_noLocks @inline(__always) get { SIMD8(1.325, 1.775, 1.525, 2.075, 1.175, 1.675, 1.975, 1.425) }
    }
    /// At full depth η = `fullDepth`·(lfo − `lfoOffset`), lfo in −1…1: η from −0.9 to +0.3.
    static var fullDepth: Float { @_noLocks @inline(__always) get { 0.6 } }
    static var lfoOffset: Float { @_noLocks @inline(__always) get { 0.5 } }
    /// Modal overlap at and above which the lines are not modulated (every room at its own
    /// decay is above it).
    static var unmodulatedOverlap: Double { @_noLocks @inline(__always) get { 1 } }

    /// Groups since the clear (wrapping), and each line's LFO phase step per group (a full cycle
    /// is 2³²).
    var group: UInt32 = 0
    var step: SIMD8<UInt32> = .zero
    /// Depth (0…`fullDepth`; 0: unmodulated) for the decay `depthDecaySeconds` (s).
    var depth: Float = 0
    var depthDecaySeconds = -1.0
    /// Total loop delay of the network's 8 lines (s).
    var loopSeconds = 0.0
    /// The allpass's previous output, one lane per line.
    var previousOutput: SIMD8<Float> = .zero

    /// The phase steps at `sampleRate` (Hz) and the total of the loop delays (samples). A line
    /// shorter than 9 samples cannot be read a sample later within its group: then no line is
    /// modulated.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func load(sampleRate: Double, lineDelay: SIMD8<Int32>, diffuserDelay: SIMD8<Int32>) {
        let loopDelay = lineDelay &+ diffuserDelay
        var s = SIMD8<UInt32>.zero
        var total = 0.0
        let rates = Self.ratesHz
        for i in 0..<8 {
            s[i] = UInt32(rates[i] * 8 / sampleRate * 4_294_967_296)
            total += Double(loopDelay[i])
        }
        step = s
        loopSeconds = lineDelay.min() < 9 ? 0 : total / sampleRate
        depthDecaySeconds = -1
    }

    /// The LFOs' phases at the clear: an eighth of a cycle apart.
    static var startPhase: SIMD8<UInt32> {
        @_noLocks @inline(__always) get {
            SIMD8(0, 0x2000_0000, 0x4000_0000, 0x6000_0000, 0x8000_0000, 0xA000_0000, 0xC000_0000, 0xE000_0000)
        }
    }

    /// Back to the first group, no allpass memory.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func reset() {
        group = 0
        previousOutput = .zero
    }

    /// The depth for a broadband decay of `decaySeconds` (recomputed only when it changes).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func update(decaySeconds: Double) {
        if decaySeconds == depthDecaySeconds { return }
        depthDecaySeconds = decaySeconds
        guard loopSeconds > 0 else {
            depth = 0
            return
        }
        let overlap = loopSeconds * 2.2 / decaySeconds
        let missing = Self.unmodulatedOverlap / overlap - 1     // 0 at the threshold, 1 at half of it
        depth = Self.fullDepth * Float(missing < 0 ? 0 : (missing > 1 ? 1 : missing))
    }

    /// The allpass coefficient η of every line in group `group` (since the clear).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func coefficients(group: UInt32) -> SIMD8<Float> {
        let phase = Self.startPhase &+ step &* SIMD8(repeating: group)
        let x = SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: phase)) * (1 / 2_147_483_648)  // −1 … 1
        let lfo = 4 * x * (1 - pointwiseMax(x, -x))          // a parabolic sine: smooth (C¹)
        return depth * (lfo - Self.lfoOffset)
    }
}

extension ReverbCore {
    /// The group's delay-line outputs, one vector per sample (the 8 lines across the lanes):
    /// the plain reads `lineDelay` behind, or, when the lines are modulated, each line read one
    /// sample later through its allpass (`ReverbModulation`).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func lineOutputs(_ lines: UnsafeMutablePointer<Float>, write: Int) -> Block8 {
        let ringStride = lineStride, ringMask = lineMask, lineDelay = coefficients.lineDelay
        modulation.update(decaySeconds: coefficients.decaySeconds)
        let group = modulation.group
        modulation.group = group &+ 1
        if modulation.depth == 0 {
            let plain = Block8 { i in Self.load(lines + (i &* ringStride &+ ((write &- Int(lineDelay[i])) & ringMask))) }
                .transposed()
            modulation.previousOutput = plain.v7
            return plain
        }
        let allpass = modulation.coefficients(group: group)
        let current = Block8 { i in Self.load(lines + (i &* ringStride &+ ((write &- Int(lineDelay[i]) &+ 1) & ringMask))) }
            .transposed()
        var before = SIMD8<Float>.zero                 // x[n−1] of the group's first sample
        for i in 0..<8 { before[i] = lines[i &* ringStride &+ ((write &- Int(lineDelay[i])) & ringMask)] }
        var y = modulation.previousOutput
        let modulated = Block8 { j in
            y = allpass * (current[j] - y) + (j == 0 ? before : current[j &- 1])
            return y
        }
        modulation.previousOutput = y
        return modulated
    }
}
