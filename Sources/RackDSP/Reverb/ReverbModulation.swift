/// Slow modulation of the feedback mixing, for decays far beyond a room's own: the eight line
/// outputs are rotated in pairs (line i with line i + 4) by angles that wander smoothly and
/// without period, before the absorption and the Hadamard matrix, so that the network's modes
/// move and no mode stands out of a long tail as a metallic ring. A time-varying orthogonal
/// matrix in the loop (S. J. Schlecht and E. A. P. Habets, "Time-varying feedback matrices in
/// feedback delay networks and their application in artificial reverberation", JASA 138(3),
/// 2015) keeps the loop lossless at every instant, and it moves the modes at every frequency
/// alike (a change of the matrix turns the phase a mode gains per pass by the same angle
/// whatever its frequency), where a modulated delay moves a mode in proportion to its frequency
/// and a first-order allpass's delay swing collapses at high frequencies (the allpass this
/// replaced left smallRoom at 20 s ringing +7.0 dB at 880 Hz and +3.9 dB at 8.4 kHz; this
/// ≤ +0.9 dB at 44.1, 48 and 96 kHz: figures in `ReverbDecayQualityTests`).
///
/// Loop gain: a rotation is orthogonal; it sits before each line's absorption, so a signal that
/// travelled line i + 4 and is rotated into line i is absorbed as line i's; the two gains per
/// pass differ by a factor 10^(−3·Δτ/T60) for loops Δτ apart, close to 1 at the long decays
/// that are modulated: T30 at 20 s (smallRoom, cathedral; 44.1, 48, 96 kHz) measures as with the
/// allpass this replaced within 0.5 %.
///
/// The angles: per pair, tan(θ/2) = `depth`·w, with w a smoothed value noise in −1…1 (hashed
/// values at knots `knotSeconds` apart, joined by a smoothstep, which is C¹); the rotation
/// (cos θ, sin θ) = ((1 − t²), 2t)/(1 + t²) is orthogonal without a square root. At full depth
/// θ swings within ±127°. (Measured at 48 kHz, smallRoom at 20 s, ringing over 50 Hz…10 kHz,
/// with the rotation still held per group:
/// ±53° with knots 0.25 s apart +7.2 dB, ±90° with 0.05 s +3.1 dB, ±127° with 0.1 s +1.6…+2.9
/// dB over four hash seeds, with 0.05 s +0.3…+1.2 dB; a periodic modulation leaves lines in the
/// spectrum at its harmonics.)
///
/// When: a network's modes overlap less as its decay grows (modal overlap = total loop delay
/// × mode bandwidth 2.2/T60, after Schroeder). Every room at its own decay has an overlap of
/// at least 1.02 (cathedral; smallRoom 2.65); below `unmodulatedOverlap` (1) the depth grows
/// with the missing overlap m (0 at the threshold, 1 at half of it) as the smoothstep
/// 3m² − 2m³, full at half of it: no kink where the modulation sets in, so a `decay` ramp
/// across the threshold does not splatter (a depth growing linearly with m put a 20 ms jump to
/// 8 s 9.1 dB more above 8 kHz than a 200 ms one; smoothed, 3.8 dB). Rooms at their own
/// values are therefore never modulated (their output is bit-identical to the unmodulated
/// network).
///
/// Determinism: the angles are a function of the number of 8-sample groups since the network
/// was cleared, hence of the absolute sample position since the clear, whatever the block
/// sizes. tan(θ/2) is interpolated linearly across each group, from its value at the group's
/// start to the next group's, and the rotation made per sample (still exactly orthogonal): a
/// rotation held for a group and stepped (by up to ~2.5° at 48 kHz) put images of the
/// modulation at multiples of rate/8 (a 1 kHz tone splattered −45 dB above 8 kHz). Unmodulated,
/// a group costs the count's increment and a compare: the angles are computed only when
/// modulated.
struct ReverbModulation {
    /// tan(θ/2) at full depth (θ within ±127°).
    static var fullDepth: Float { @_noLocks @inline(__always) get { 2 } }
    /// Time (s) between two knots of the value noise (the angles wander at ~10 Hz and slower).
    static var knotSeconds: Double { @_noLocks @inline(__always) get { 0.05 } }
    /// Coefficient of the lines' second diffusers (`ReverbCoefficients.secondDiffuserDelay`) at
    /// full depth: the loop's own diffusers' (`RoomDefinition.diffusion`).
    static var secondDiffusionAtFullDepth: Float { @_noLocks @inline(__always) get { 0.5 } }
    /// Modal overlap at and above which the lines are not modulated (every room at its own
    /// decay is above it).
    static var unmodulatedOverlap: Double { @_noLocks @inline(__always) get { 1 } }

    /// Groups since the clear, groups between two knots of the value noise, and its inverse.
    var group = 0
    var knotGroups = 1
    var knotStep: Float = 1
    /// Depth (tan(θ/2) at the noise's extremes, 0…`fullDepth`; 0: unmodulated) for the decay
    /// `depthDecaySeconds` (s).
    var depth: Float = 0
    var depthDecaySeconds = -1.0
    /// The coefficient of the lines' second diffusers for that decay: `secondDiffusionAtFullDepth`
    /// times `depth`/`fullDepth` (0: a plain delay, the network as designed).
    var secondDiffusion: Float = 0
    /// The depth and the second diffusers' coefficient of the group before: a group whose
    /// decay moved glides from them to the new ones (the rotation's tangent from the old depth
    /// at its start to the new at its end, the coefficient sample by sample) instead of
    /// stepping (`decay` jumps splattered 11 dB more above 8 kHz than the same change over
    /// 200 ms with the steps).
    var depthBefore: Float = 0
    var secondDiffusionBefore: Float = 0
    /// Total loop delay of the network's 8 lines (s).
    var loopSeconds = 0.0

    /// The knot spacing at `sampleRate` (Hz) and the total of the loop delays (samples).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func load(sampleRate: Double, lineDelay: SIMD8<Int32>, diffuserDelay: SIMD8<Int32>) {
        let loopDelay = lineDelay &+ diffuserDelay
        var total = 0.0
        for i in 0..<8 { total += Double(loopDelay[i]) }
        knotGroups = max(1, Int(Self.knotSeconds * sampleRate / 8 + 0.5))
        knotStep = 1 / Float(knotGroups)
        loopSeconds = total / sampleRate
        depthDecaySeconds = -1
    }

    /// Back to the first group.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func reset() {
        group = 0
    }

    /// The depth for a broadband decay of `decaySeconds` (recomputed only when it changes).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func update(decaySeconds: Double) {
        (depthBefore, secondDiffusionBefore) = (depth, secondDiffusion)
        if decaySeconds == depthDecaySeconds { return }
        depthDecaySeconds = decaySeconds
        guard loopSeconds > 0 else {
            depth = 0
            secondDiffusion = 0
            return
        }
        let overlap = loopSeconds * 2.2 / decaySeconds
        let missing = Self.unmodulatedOverlap / overlap - 1     // 0 at the threshold, 1 at half of it
        let clamped = missing < 0 ? 0 : (missing > 1 ? 1 : missing)
        let fraction = Float(clamped * clamped * (3 - 2 * clamped))
        depth = Self.fullDepth * fraction
        secondDiffusion = Self.secondDiffusionAtFullDepth * fraction
    }

    /// The second diffusers' coefficient at each sample of the group (the group before's
    /// moving to this one's, reached at the group's last sample).
    var secondDiffusions: SIMD8<Float> {
        @_noLocks @inline(__always) get {
            if secondDiffusionBefore == secondDiffusion { return SIMD8(repeating: secondDiffusion) }
            return SIMD8(repeating: secondDiffusionBefore)
                + SIMD8(repeating: secondDiffusion - secondDiffusionBefore) * ReverbAbsorptionGlide.fractions
        }
    }

    /// The value noise of the four pairs at the start of group `group` and at the start of the
    /// next: −1…1, smoothstep between knots (one division and two knots' hashes per group).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func wander(group: Int) -> (start: SIMD4<Float>, end: SIMD4<Float>) {
        let knot = group / knotGroups
        let position = Float(group &- knot &* knotGroups)
        let before = Self.knotValues(UInt32(truncatingIfNeeded: knot))
        let after = Self.knotValues(UInt32(truncatingIfNeeded: knot &+ 1))
        let from = position * knotStep, to = (position + 1) * knotStep
        let smoothFrom = from * from * (3 - 2 * from), smoothTo = to * to * (3 - 2 * to)
        return (before + (after - before) * smoothFrom, before + (after - before) * smoothTo)
    }

    /// The noise's values at knot `knot`, one per pair, −1…1: an integer hash of the knot and
    /// the pair (the "lowbias32" mixer, C. Wellons' hash-prospector).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    static func knotValues(_ knot: UInt32) -> SIMD4<Float> {
        var x = SIMD4<UInt32>(repeating: knot &* 0x9E37_79B1) ^ (SIMD4<UInt32>(1, 2, 3, 4) &* 0x85EB_CA77)
        x ^= x &>> 16
        x &*= 0x7FEB_352D
        x ^= x &>> 15
        x &*= 0x846C_A68B
        x ^= x &>> 16
        return SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: x)) * (1 / 2_147_483_648)
    }

    /// The rotation of one sample: per line, the cosine and the signed sine that
    /// `ReverbCore.lineOutputs` applies as c·x + s·(x with its halves swapped), for the pairs'
    /// tan(θ/2) `t` ((cos θ, sin θ) = (1 − t², 2t)/(1 + t²): orthogonal for any t).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    static func rotation(halfAngleTangent t: SIMD4<Float>) -> (cosine: SIMD8<Float>, sine: SIMD8<Float>) {
        let scale = 1 / (1 + t * t)
        let sine = 2 * t * scale, cosine = (1 - t * t) * scale
        return (SIMD8(lowHalf: cosine, highHalf: cosine), SIMD8(lowHalf: sine, highHalf: -sine))
    }
}

extension ReverbCore {
    /// The group's delay-line outputs, one vector per sample (the 8 lines across the lanes),
    /// each line read `lineDelay` behind; when the lines are modulated, rotated in pairs
    /// (`ReverbModulation`): line i ← c·i + s·(i + 4), line i + 4 ← c·(i + 4) − s·i.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func lineOutputs(_ rings: ReverbRings) -> Block8 {
        let lineDelay = coefficients.lineDelay
        modulation.update(decaySeconds: coefficients.decaySeconds)
        let group = modulation.group
        modulation.group = group &+ 1
        let depth = modulation.depth, depthBefore = modulation.depthBefore
        if depth == 0 && depthBefore == 0 {
            return Block8 { i in rings.lineRead(i, delay: Int(lineDelay[i])) }.transposed()
        }
        // Through the second diffusers (g ≠ 0 whenever the depth is).
        let g = modulation.secondDiffusions, secondDelay = coefficients.secondDiffuserDelay
        let read = Block8 { i in
            rings.secondDiffuserRead(i, delay: Int(lineDelay[i]), secondDelay: Int(secondDelay[i]), g: g)
        }.transposed()
        let noise = modulation.wander(group: group)
        let start = depthBefore * noise.start
        let slope = depth == depthBefore ? depth * (noise.end - noise.start) * 0.125
            : (depth * noise.end - depthBefore * noise.start) * 0.125
        return Block8 { j in
            let (cosine, sine) = ReverbModulation.rotation(halfAngleTangent: start + slope * Float(j))
            let x = read[j]
            return cosine * x + sine * SIMD8(lowHalf: x.highHalf, highHalf: x.lowHalf)
        }
    }
}
