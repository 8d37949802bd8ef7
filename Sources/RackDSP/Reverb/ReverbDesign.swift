/// Everything a core needs for one room at one sample rate, and the reverb's design maths that
/// make it (not realtime; `Reverb.prepare` runs it once per room at the running rate): a room's
/// `RoomDefinition` and the network constants of `ReverbTuning`, in seconds and hertz, become
/// `ReverbCoefficients` in samples at the running rate:
/// - delays: rounded to samples and moved to distinct primes (Schroeder 1962),
/// - absorption per line: mid-band gain, low shelf and HF damping pole from the line's own loop
///   delay (Jot & Chaigne 1991; J. O. Smith, "First-Order Delay-Filter Design"),
/// - loudness calibration: the output scale that gives every room the same late energy,
/// - early taps, pre-delay and the input smoother.
struct ReverbCoefficients {
    /// Plain delay of each line (samples, ≥ 8).
    var lineDelay: SIMD8<Int32>
    /// Diffuser delay of each line (samples, ≥ 8).
    var diffuserDelay: SIMD8<Int32>
    /// Delay of each line's second diffuser (samples, ≥ 8, at most `lineDelay` and
    /// `midTapDelay` − 8): the first `secondDiffuserDelay` samples of the plain delay `lineDelay`,
    /// an allpass at decays beyond the room's own (`ReverbModulation`), else a plain delay (the
    /// line ring is its delay: `ReverbCore`): the loop delays, hence the design, are the same
    /// either way.
    var secondDiffuserDelay: SIMD8<Int32>
    /// Mid-band gain per line, times 1/√8 (the Hadamard normalisation).
    var gain: SIMD8<Float>
    /// Low-shelf term (g_low − g_mid)/√8: multiplies the crossover low-pass state.
    var lowShelf: SIMD8<Float>
    /// One-pole coefficient of the crossover low-pass: 1 − e^(−2π·f_c/fs).
    var lowCoefficient: Float
    /// Pole of each line's HF damping low-pass (0 ≤ b < 1).
    var damping: SIMD8<Float>
    /// (1 − b)·gain and (1 − b)·lowShelf: the kernel's form of the filter,
    /// y = (1−b)·(gain·x + lowShelf·lo) + b·y₋₁.
    var dampedGain: SIMD8<Float>
    var dampedShelf: SIMD8<Float>
    /// Allpass diffuser coefficient.
    var diffusion: Float
    /// Delay of each line's second output tap behind the line's input (samples, 8 … the
    /// shortest line delay; the same in every lane: `ReverbTuning.midTapFraction`).
    var midTapDelay: SIMD8<Int32>
    /// Absorption of each line's diffuser over its own delay: 10^(−3·M_i/T60mid).
    var diffuserAbsorption: SIMD8<Float>
    /// Input diffusers: delays (samples, ≥ 8; lanes 0…3 left input, 4…7 right input, in
    /// series) and their allpass coefficient.
    var inputDiffuserDelay: SIMD8<Int32>
    var inputDiffusion: Float
    /// The output DC blocker (depends on the rate only).
    var dcBlocker: DCBlocker
    /// Output scale (room loudness normalisation) for the ±1 output patterns.
    var outputScale: Float
    /// Early taps: delay (samples, ≥ 8) and input channel (0: L, 1: R) of each tap, lanes 0…3 →
    /// left output, 4…7 → right output, and linear gains.
    var earlyDelay: SIMD8<Int32>
    var earlyChannel: SIMD8<Int32>
    var earlyGain: SIMD8<Float>
    /// Pre-delay of the late reverb's input (samples, ≥ 8).
    var preDelay: Int
    /// Input smoother: boxcar length B (samples, ≥ 2); the smoother is that boxcar squared.
    var smoothLength: Int
    /// The anti-denormal offset, alternating in sign from sample to sample.
    var antiDenormal: SIMD8<Float>
    /// The absorption's inputs, kept so that `shape(decaySeconds:dampingHz:frozen:)` can remake
    /// it while the network runs: the room's mid-band over broadband T60
    /// (`RoomDefinition.calibration`), its low over mid-band T60, the rate (Hz), and the
    /// decay (s), damping (Hz) and freeze the absorption is made for now.
    var calibration = 1.0
    var lowRatio = 1.0
    var sampleRate = 48_000.0
    var decaySeconds = 1.0
    var dampingHz = ReverbShape.dampingRange.upperBound
    var frozen = false
    /// The room's own decay (s) and damping (Hz): `shape` makes the absorption for them exactly
    /// as the design does (byte for byte).
    var ownDecaySeconds = 1.0
    var ownDampingHz = ReverbShape.dampingRange.upperBound
    /// The absorption the loops have now (unless `frozen`), and the per-line factors that remake
    /// it cheaply while a control moves.
    var absorption = LineAbsorption.lossless
    var absorptionFactors = LineAbsorptionFactors()
    /// 1/√8, the Hadamard normalisation (kept: `squareRoot` is a series, not an instruction).
    var invRoot8 = 1 / ReverbCoefficients.squareRoot(8)
    /// The room's decay correction (`RoomDefinition.decayCorrection`, its 16 nodes; all 1 for a
    /// definition outside the table) and its value at the room's own decay: a shaped decay's
    /// mid-band T60 is `decaySeconds · calibration · correction(decay)/correction(own)`, so at
    /// the room's own decay the factor is exactly 1 (the room's design, byte for byte).
    var decayCorrection = SIMD16<Double>(repeating: 1)
    var ownDecayCorrection = 1.0
    /// The room's damping correction (its rows of `RoomDefinition.dampingCorrectionTable`; nil
    /// for a definition outside the table: no correction): the mid-band T60 is also multiplied
    /// by d(decay, damping)/d(decay, own damping), exactly 1 at the room's own damping
    /// (`midDecaySeconds(decaySeconds:dampingHz:)`).
    var dampingCorrection: DampingCorrectionRows? = nil
    /// `ReverbTuning.halfDecayPerDamping`, copied (a `static let` read is a call on the render path).
    var halfDecayPerDamping = ReverbTuning.halfDecayPerDamping
    /// True for a room's short form (`ReverbShortForm.swift`), and the decay (s) below which the
    /// room runs it (`RoomDefinition.shortFormBelowSeconds`; 0: the room has none), in both forms.
    var isShortForm = false
    var shortFormBelowSeconds = 0.0
    /// Sizes this room needs (samples).
    var longestLine: Int
    var longestDiffuser: Int
    var longestHistory: Int

    /// All zero (an unprepared core).
    init() {
        lineDelay = SIMD8(repeating: 8)
        diffuserDelay = SIMD8(repeating: 8)
        secondDiffuserDelay = SIMD8(repeating: 8)
        gain = .zero
        lowShelf = .zero
        lowCoefficient = 0
        damping = .zero
        dampedGain = .zero
        dampedShelf = .zero
        diffusion = 0
        midTapDelay = SIMD8(repeating: 8)
        diffuserAbsorption = .zero
        inputDiffuserDelay = SIMD8(repeating: 8)
        inputDiffusion = 0
        dcBlocker = DCBlocker()
        outputScale = 0
        earlyDelay = SIMD8(repeating: 8)
        earlyChannel = .zero
        earlyGain = .zero
        preDelay = 8
        smoothLength = 2
        antiDenormal = .zero
        longestLine = 8
        longestDiffuser = 8
        longestHistory = 8
    }

    /// The coefficients of `room` at `fs` Hz, from its row of `RoomDefinition.table`.
    init(room: Room, sampleRate fs: Double) {
        self.init(definition: room.definition, sampleRate: fs)
        decayCorrection = RoomDefinition.decayCorrection(room)
        ownDecayCorrection = Self.correction(decayCorrection, decaySeconds: decaySeconds)
        dampingCorrection = DampingCorrectionRows(room)
        shortFormBelowSeconds = room.definition.shortFormBelowSeconds
    }

    /// The coefficients of a room definition at `fs` Hz (any definition, for tuning experiments).
    init(definition room: RoomDefinition, sampleRate fs: Double) {
        self.init()
        var used: [Int] = []
        // Input diffusers first (their primes are then avoided by the lines).
        inputDiffuserDelay = Self.inputDiffuserDelays(room, sampleRate: fs, avoiding: &used)
        inputDiffusion = Float(room.inputDiffusion)
        dcBlocker = DCBlocker(cutoff: ReverbTuning.dcBlockerHertz, sampleRate: fs)
        (diffuserDelay, lineDelay) = Self.loopDelays(room, sampleRate: fs, avoiding: &used)
        let crossoverCoefficient = 1 - RackMath.exp2(-2 * RackMath.pi * room.crossover / fs / RackMath.ln2)
        lowCoefficient = Float(crossoverCoefficient)
        (calibration, lowRatio, sampleRate) = (room.calibration, room.lowRatio, fs)
        (decaySeconds, dampingHz) = (room.targetDecaySeconds, room.dampingHz)
        (ownDecaySeconds, ownDampingHz) = (decaySeconds, dampingHz)
        absorptionFactors = LineAbsorptionFactors(sampleRate: fs, lineDelay: lineDelay, diffuserDelay: diffuserDelay)
        let midDecaySeconds = room.targetDecaySeconds * room.calibration
        let absorption = LineAbsorption(midDecaySeconds: midDecaySeconds,
                                        lowDecaySeconds: midDecaySeconds * room.lowRatio,
                                        halfDecayHz: room.halfDecayHz, sampleRate: fs,
                                        lineDelay: lineDelay, diffuserDelay: diffuserDelay)
        apply(absorption)
        self.absorption = absorption
        diffusion = Float(room.diffusion)
        midTapDelay = SIMD8(repeating: Int32(max(8, Self.samples(ReverbTuning.midTapFraction * Double(lineDelay.min())))))
        secondDiffuserDelay = Self.secondDiffuserDelays(diffuserDelay, within: pointwiseMin(lineDelay, midTapDelay),
                                                        avoiding: &used)
        outputScale = Self.loudnessScale(absorption, crossoverCoefficient: crossoverCoefficient,
                                         diffusion: room.diffusion, sampleRate: fs)
        setEarlyTaps(room, sampleRate: fs)
        preDelay = max(Self.samples(room.preDelay * fs), 8)
        smoothLength = max(2, 2 * Self.samples(ReverbTuning.inputSmoothingSeconds * fs))
        longestHistory = max(longestHistory, preDelay + 2 * smoothLength)
        let a = ReverbTuning.antiDenormal
        antiDenormal = SIMD8(a, -a, a, -a, a, -a, a, -a)
        longestLine = Int(lineDelay.max())
        longestDiffuser = max(Int(diffuserDelay.max()), Int(inputDiffuserDelay.max()))
    }

    /// The input diffusers' delays (samples, distinct primes ≥ 8; lanes 0…3 left, 4…7 right).
    static func inputDiffuserDelays(_ room: RoomDefinition, sampleRate fs: Double,
                                    avoiding used: inout [Int]) -> SIMD8<Int32> {
        var delay = SIMD8<Int32>(repeating: 8)
        for i in 0..<8 {
            let seconds = max(ReverbTuning.inputDiffuserSeconds[i] * room.inputDiffuserScale,
                              ReverbTuning.minimumInputDiffuserSeconds)
            delay[i] = Int32(distinctPrime(atLeast: max(samples(seconds * fs), 8), avoiding: &used))
        }
        return delay
    }

    /// Each line's diffuser delay and plain delay (samples, distinct primes ≥ 8): together the
    /// loop delay `ReverbTuning.loopDelaySeconds` × size.
    static func loopDelays(_ room: RoomDefinition, sampleRate fs: Double, avoiding used: inout [Int])
        -> (diffuser: SIMD8<Int32>, line: SIMD8<Int32>) {
        var diffuserDelay = SIMD8<Int32>(repeating: 8), lineDelay = SIMD8<Int32>(repeating: 8)
        for i in 0..<8 {
            let diffuserSeconds = max(ReverbTuning.diffuserDelaySeconds[i] * room.size,
                                      ReverbTuning.minimumDiffuserSeconds)
            let diffuser = distinctPrime(atLeast: max(samples(diffuserSeconds * fs), 8), avoiding: &used)
            let loop = samples(ReverbTuning.loopDelaySeconds[i] * room.size * fs)
            diffuserDelay[i] = Int32(diffuser)
            lineDelay[i] = Int32(distinctPrime(atLeast: max(loop - diffuser, 8), avoiding: &used))
        }
        return (diffuserDelay, lineDelay)
    }

    /// Each line's second diffuser delay (samples): `ReverbTuning.secondDiffuserFraction` of its
    /// diffuser's, moved to a distinct prime, at least 8 and at most `within` − 8 (so the line
    /// and the second output tap are still read ≥ 8 behind).
    static func secondDiffuserDelays(_ diffuserDelay: SIMD8<Int32>, within: SIMD8<Int32>,
                                     avoiding used: inout [Int]) -> SIMD8<Int32> {
        var delay = SIMD8<Int32>(repeating: 8)
        for i in 0..<8 {
            let wanted = max(samples(ReverbTuning.secondDiffuserFraction * Double(diffuserDelay[i])), 8)
            delay[i] = Int32(max(8, min(distinctPrime(atLeast: wanted, avoiding: &used), Int(within[i]) - 8)))
        }
        return delay
    }

    /// Sets the loop's absorption (the kernel's form of `absorption`). Realtime-safe.
    @_noLocks @inline(__always)
    mutating func apply(_ absorption: LineAbsorption) {
        applyGains(absorption)
        applyPoles(absorption)
    }

    /// The kernel's gains, low shelves and diffuser absorptions from `absorption`; the damped
    /// forms follow in `applyPoles`, which must come after.
    @_noLocks @inline(__always)
    mutating func applyGains(_ absorption: LineAbsorption) {
        let a = absorption.diffuser
        // Whole vectors (each lane the same IEEE operations as a scalar loop, in registers).
        gain = SIMD8<Float>(absorption.midGain / a * invRoot8)
        lowShelf = SIMD8<Float>(absorption.lowShelf / a * invRoot8)
        diffuserAbsorption = SIMD8<Float>(a)
    }

    /// The damping poles of `absorption` and the damped gains (with the gains set now).
    @_noLocks @inline(__always)
    mutating func applyPoles(_ absorption: LineAbsorption) {
        damping = SIMD8<Float>(absorption.pole)
        dampedGain = (1 - damping) * gain
        dampedShelf = (1 - damping) * lowShelf
    }

    /// Remakes the loops' absorption for a broadband RT60 of `decaySeconds` (the mid band's is
    /// `midDecaySeconds(decaySeconds:dampingHz:)`, the low band's `lowRatio` times that) and a `dampingHz` (the
    /// one-pole's half-decay frequency `halfDecayPerDamping` times it; at `ReverbShape.dampingRange`'s top, or twice it beyond
    /// Nyquist, no damping / damping at Nyquist), or a lossless loop when `frozen` (every
    /// loop gain 1: the Hadamard matrix, the allpasses and the delays keep the energy). Nothing
    /// changes when the values are those it has. Same delays, same output scale.
    /// Only what moved is remade: a `decay` move the gains and the poles (which follow the
    /// gains), a `damping` move the poles and, in a room with a damping correction, the gains
    /// (the mid-band T60 that keeps the broadband T30 at the set decay moves with the damping),
    /// each by `LineAbsorptionFactors`; at the room's own decay and damping the absorption is
    /// the design's, byte for byte.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func shape(decaySeconds: Double, dampingHz: Double, frozen: Bool) {
        let decayMoved = decaySeconds != self.decaySeconds || frozen != self.frozen
        let dampingMoved = dampingHz != self.dampingHz || frozen != self.frozen
        guard decayMoved || dampingMoved else { return }
        (self.decaySeconds, self.dampingHz, self.frozen) = (decaySeconds, dampingHz, frozen)
        if frozen {
            apply(.lossless)
            return
        }
        let halfDecayHz: Double? = dampingHz >= ReverbShape.dampingRange.upperBound
            ? nil : min(halfDecayPerDamping * dampingHz, 0.5 * sampleRate)
        if decaySeconds == ownDecaySeconds && dampingHz == ownDampingHz {
            let midDecaySeconds = self.midDecaySeconds(decaySeconds: decaySeconds, dampingHz: dampingHz)
            absorption = LineAbsorption(midDecaySeconds: midDecaySeconds, lowDecaySeconds: midDecaySeconds * lowRatio,
                                        halfDecayHz: halfDecayHz, sampleRate: sampleRate,
                                        lineDelay: lineDelay, diffuserDelay: diffuserDelay)
            apply(absorption)
            return
        }
        var corrected = false
        if case .some = dampingCorrection { corrected = true }
        if decayMoved || corrected {
            let midDecaySeconds = self.midDecaySeconds(decaySeconds: decaySeconds, dampingHz: dampingHz)
            absorptionFactors.setGains(&absorption, midDecaySeconds: midDecaySeconds,
                                       lowDecaySeconds: midDecaySeconds * lowRatio)
            applyGains(absorption)
        }
        absorptionFactors.setPoles(&absorption, halfDecayHz: halfDecayHz, sampleRate: sampleRate)
        applyPoles(absorption)
    }

    /// Early taps: delays, channels and gains, and the history they need.
    mutating func setEarlyTaps(_ room: RoomDefinition, sampleRate fs: Double) {
        for i in 0..<8 {
            let d = max(Self.samples(ReverbTuning.earlyTapSeconds[i] * room.earlyTimeScale * fs), 8)
            earlyDelay[i] = Int32(d)
            earlyChannel[i] = Int32(ReverbTuning.earlyTapChannel[i])
            earlyGain[i] = Float(ReverbTuning.earlyTapGain[i] * room.earlyLevel)
            longestHistory = max(longestHistory, d)
        }
    }

    /// The output scale that gives the late reverb the energy `ReverbTuning.lateEnergy`.
    ///
    /// A mono unit impulse puts energy 1 into each of the 8 lines; each pass round line i's
    /// loop multiplies the energy at frequency f by |G_i(f)|², so the lines carry
    /// E(f) ≈ 8·|S(f)|²/(1 − mean_i |G_i(f)|²), S being the input smoothing. The diffusers'
    /// zero-delay term −g·f of the injected input never reaches the outputs (the injection
    /// patterns are orthogonal to the output patterns): remove its 8·g²·|S(f)|². Each output
    /// is a ±1 mix of the lines (energy ≈ E for uncorrelated lines). E is averaged with equal
    /// weight per octave over `ReverbTuning.loudnessBand` (pink-noise weighting, roughly how
    /// program material spreads its energy), and both outputs are scaled by √(target/(2E)):
    /// every room has the same late loudness whatever its size, decay and damping.
    static func loudnessScale(_ absorption: LineAbsorption, crossoverCoefficient: Double,
                              diffusion: Double, sampleRate fs: Double) -> Float {
        let bins = 48
        let lowHz = ReverbTuning.loudnessBand.lowerBound
        let highHz = min(ReverbTuning.loudnessBand.upperBound, 0.45 * fs)
        let octaves = RackMath.log2(highHz / lowHz)
        let smoothB = Double(max(2, 2 * samples(ReverbTuning.inputSmoothingSeconds * fs)))
        var energy = 0.0
        for j in 0..<bins {
            let hz = lowHz * RackMath.exp2(octaves * (Double(j) + 0.5) / Double(bins))
            let w = 2 * RackMath.pi * hz / fs
            var meanPower = 0.0
            let (sinW, cosW) = RackMath.sincos(w)
            for i in 0..<8 {
                meanPower += loopPower(sinW: sinW, cosW: cosW, gain: absorption.midGain[i],
                                       lowShelf: absorption.lowShelf[i],
                                       lowCoefficient: crossoverCoefficient,
                                       damping: absorption.pole[i]) / 8
            }
            // Boxcar of B samples, squared: S(w) = (sin(Bw/2)/(B·sin(w/2)))².
            let box = RackMath.sin(smoothB * w / 2) / (smoothB * RackMath.sin(w / 2))
            let smoothing = box * box * box * box
            // Two output taps per line (its input and `midTapDelay` along it), about uncorrelated.
            let lines = 2 * (8 / (1 - meanPower) - 8 * diffusion * diffusion)
            energy += lines * smoothing / Double(bins)
        }
        return Float(squareRoot(ReverbTuning.lateEnergy / (2 * energy)))
    }

    /// Nearest whole number of samples for a non-negative count (no libm `round`).
    static func samples(_ x: Double) -> Int { Int(x + 0.5) }

    /// √x for x ≥ 0 via RackMath (Double.squareRoot() can fall back to libm's sqrt, which
    /// RackDSP does not link).
    @_noLocks @inline(__always)
    static func squareRoot(_ x: Double) -> Double {
        x > 0 ? RackMath.exp2(0.5 * RackMath.log2(x)) : 0
    }

    /// |G(e^{jw})|² of one line's absorption (given sin w and cos w): gain·|1 + s·a/(1 − (1−a)·e^{−jw})|²·
    /// |(1−b)/(1 − b·e^{−jw})|², with s = lowShelf/gain and a the crossover coefficient (the
    /// low shelf x + s·LP(x), then the HF one-pole).
    static func loopPower(sinW: Double, cosW: Double, gain: Double, lowShelf: Double,
                          lowCoefficient a: Double, damping b: Double) -> Double {
        // LP(z) = a/(1 − (1−a)z⁻¹): denominator d = 1 − (1−a)(cos w − j sin w).
        let dr = 1 - (1 - a) * cosW, di = (1 - a) * sinW
        let dd = dr * dr + di * di
        let s = lowShelf / gain
        // 1 + s·a/d = 1 + s·a·conj(d)/|d|².
        let sr = 1 + s * a * dr / dd, si = -s * a * di / dd
        let shelf = sr * sr + si * si
        let hr = 1 - b * cosW, hi = b * sinW
        let damp = (1 - b) * (1 - b) / (hr * hr + hi * hi)
        return gain * gain * shelf * damp
    }

    /// The smallest prime ≥ n not already in `used` (then added to it): all 16 delays of a
    /// room are distinct primes, hence mutually prime.
    static func distinctPrime(atLeast n: Int, avoiding used: inout [Int]) -> Int {
        var p = max(n, 2)
        while !isPrime(p) || used.contains(p) { p += 1 }
        used.append(p)
        return p
    }

    static func isPrime(_ n: Int) -> Bool {
        if n < 2 { return false }
        if n < 4 { return true }
        if n % 2 == 0 { return false }
        var d = 3
        while d * d <= n {
            if n % d == 0 { return false }
            d += 2
        }
        return true
    }
}
