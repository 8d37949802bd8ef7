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
    /// Sizes this room needs (samples).
    var longestLine: Int
    var longestDiffuser: Int
    var longestHistory: Int

    /// All zero (an unprepared core).
    init() {
        lineDelay = SIMD8(repeating: 8)
        diffuserDelay = SIMD8(repeating: 8)
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
    }

    /// The coefficients of a room definition at `fs` Hz (any definition, for tuning experiments).
    init(definition t: RoomDefinition, sampleRate fs: Double) {
        let midT60 = t.targetDecaySeconds * t.calibration
        let lowT60 = midT60 * t.lowRatio
        let cosW = RackMath.cos(2 * RackMath.pi * t.damping / fs)
        let invRoot8 = 1 / Self.squareRoot(8)

        var lineDelay = SIMD8<Int32>(repeating: 8)
        var diffuserDelay = SIMD8<Int32>(repeating: 8)
        var gain = SIMD8<Float>(repeating: 0)
        var lowShelf = SIMD8<Float>(repeating: 0)
        var damping = SIMD8<Float>(repeating: 0)
        var absorption = SIMD8<Float>(repeating: 0)
        var used: [Int] = []
        // Input diffusers first (their primes are then avoided by the lines).
        var inputDelay = SIMD8<Int32>(repeating: 8)
        for i in 0..<8 {
            let seconds = max(ReverbTuning.inputDiffuserSeconds[i] * t.inputDiffuserScale,
                              ReverbTuning.minimumInputDiffuserSeconds)
            inputDelay[i] = Int32(Self.distinctPrime(atLeast: max(Self.samples(seconds * fs), 8),
                                                     avoiding: &used))
        }
        inputDiffuserDelay = inputDelay
        inputDiffusion = Float(t.inputDiffusion)
        dcBlocker = DCBlocker(cutoff: ReverbTuning.dcBlockerHertz, sampleRate: fs)
        var lineGain = [Double](repeating: 0, count: 8), lineShelf = lineGain, linePole = lineGain
        let crossoverCoefficient = 1 - RackMath.exp2(-2 * RackMath.pi * t.crossover / fs / RackMath.ln2)
        lowCoefficient = Float(crossoverCoefficient)
        for i in 0..<8 {
            let apSeconds = max(ReverbTuning.diffuserDelaySeconds[i] * t.size,
                                ReverbTuning.minimumDiffuserSeconds)
            let ap = Self.distinctPrime(atLeast: max(Self.samples(apSeconds * fs), 8),
                                        avoiding: &used)
            let loop = Self.samples(ReverbTuning.loopDelaySeconds[i] * t.size * fs)
            let line = Self.distinctPrime(atLeast: max(loop - ap, 8), avoiding: &used)
            diffuserDelay[i] = Int32(ap)
            lineDelay[i] = Int32(line)
            let tau = Double(ap + line) / fs                     // loop delay (s)
            let gMid = RackMath.exp10(-3 * tau / midT60)         // 60 dB per T60 (Jot)
            let gLow = RackMath.exp10(-3 * tau / lowT60)
            // The diffuser absorbs its share (its own delay) of the mid-band decay; the line's
            // gain is the rest, and the low shelf lifts the whole loop to gLow below the crossover.
            let a = RackMath.exp10(-3 * Double(ap) / fs / midT60)
            absorption[i] = Float(a)
            gain[i] = Float(gMid / a * invRoot8)
            lowShelf[i] = Float((gLow - gMid) / a * invRoot8)
            // HF damping: one-pole low-pass H = (1−b)/(1 − b·z⁻¹) with |H(e^{jw})| = r at the
            // damping frequency, r = g(T60/2)/g(T60) = gMid. |H|² = r² gives
            // b² − 2Kb + 1 = 0 with K = (1 − r²·cos w)/(1 − r²); the root inside the unit
            // circle is b = K − √(K² − 1).
            let r2 = gMid * gMid
            let k = (1 - r2 * cosW) / (1 - r2)
            let pole = k - Self.squareRoot(k * k - 1)
            damping[i] = Float(pole)
            lineGain[i] = gMid
            lineShelf[i] = gLow - gMid
            linePole[i] = pole
        }
        self.lineDelay = lineDelay
        self.diffuserDelay = diffuserDelay
        self.gain = gain
        self.lowShelf = lowShelf
        self.damping = damping
        dampedGain = (1 - damping) * gain
        dampedShelf = (1 - damping) * lowShelf
        diffusion = Float(t.diffusion)
        diffuserAbsorption = absorption
        midTapDelay = SIMD8(repeating: Int32(max(8, Self.samples(ReverbTuning.midTapFraction * Double(lineDelay.min())))))

        // Loudness: a mono unit impulse puts energy 1 into each of the 8 lines; each pass round
        // line i's loop multiplies the energy at frequency f by |G_i(f)|², so the lines carry
        // E(f) ≈ 8·|S(f)|²/(1 − mean_i |G_i(f)|²), S being the input smoothing. The diffusers'
        // zero-delay term −g·f of the injected input never reaches the outputs (the injection
        // patterns are orthogonal to the output patterns): remove its 8·g²·|S(f)|². Each output
        // is a ±1 mix of the lines (energy ≈ E for uncorrelated lines). E is averaged with equal
        // weight per octave over `ReverbTuning.loudnessBand` (pink-noise weighting, roughly how
        // program material spreads its energy), and both outputs are scaled by √(target/(2E)):
        // every room has the same late loudness whatever its size, decay and damping.
        let bins = 48
        let lowHz = ReverbTuning.loudnessBand.lowerBound
        let highHz = min(ReverbTuning.loudnessBand.upperBound, 0.45 * fs)
        let octaves = RackMath.log2(highHz / lowHz)
        let smoothB = Double(max(2, 2 * Self.samples(ReverbTuning.inputSmoothingSeconds * fs)))
        var energy = 0.0
        for j in 0..<bins {
            let hz = lowHz * RackMath.exp2(octaves * (Double(j) + 0.5) / Double(bins))
            let w = 2 * RackMath.pi * hz / fs
            var meanPower = 0.0
            let (sinW, cosW) = RackMath.sincos(w)
            for i in 0..<8 {
                meanPower += Self.loopPower(sinW: sinW, cosW: cosW, gain: lineGain[i], lowShelf: lineShelf[i],
                                            lowCoefficient: crossoverCoefficient,
                                            damping: linePole[i]) / 8
            }
            // Boxcar of B samples, squared: S(w) = (sin(Bw/2)/(B·sin(w/2)))².
            let box = RackMath.sin(smoothB * w / 2) / (smoothB * RackMath.sin(w / 2))
            let smoothing = box * box * box * box
            // Two output taps per line (its input and `midTapDelay` along it), about uncorrelated.
            let lines = 2 * (8 / (1 - meanPower) - 8 * t.diffusion * t.diffusion)
            energy += lines * smoothing / Double(bins)
        }
        outputScale = Float(Self.squareRoot(ReverbTuning.lateEnergy / (2 * energy)))

        var earlyDelay = SIMD8<Int32>(repeating: 8)
        var earlyChannel = SIMD8<Int32>(repeating: 0)
        var earlyGain = SIMD8<Float>(repeating: 0)
        var longestHistory = 8
        for i in 0..<8 {
            let d = max(Self.samples(ReverbTuning.earlyTapSeconds[i] * t.earlyTimeScale * fs), 8)
            earlyDelay[i] = Int32(d)
            earlyChannel[i] = Int32(ReverbTuning.earlyTapChannel[i])
            earlyGain[i] = Float(ReverbTuning.earlyTapGain[i] * t.earlyLevel)
            longestHistory = max(longestHistory, d)
        }
        self.earlyDelay = earlyDelay
        self.earlyChannel = earlyChannel
        self.earlyGain = earlyGain
        preDelay = max(Self.samples(t.preDelay * fs), 8)
        smoothLength = max(2, 2 * Self.samples(ReverbTuning.inputSmoothingSeconds * fs))
        longestHistory = max(longestHistory, preDelay + 2 * smoothLength)
        self.longestHistory = longestHistory
        let a = ReverbTuning.antiDenormal
        antiDenormal = SIMD8(a, -a, a, -a, a, -a, a, -a)
        longestLine = Int(lineDelay.max())
        longestDiffuser = max(Int(diffuserDelay.max()), Int(inputDelay.max()))
    }

    /// Nearest whole number of samples for a non-negative count (no libm `round`).
    static func samples(_ x: Double) -> Int { Int(x + 0.5) }

    /// √x for x ≥ 0 via RackMath (Double.squareRoot() can fall back to libm's sqrt, which
    /// RackDSP does not link).
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
