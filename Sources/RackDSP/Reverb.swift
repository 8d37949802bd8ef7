/// Stereo reverb: an 8-line feedback delay network (FDN) in the style of zita-rev1.
///
/// Signal flow (the eight lines side by side):
///
///     in L/R ─► history ─┬─► early taps, 4 per side ────────────────────────────────────┐
///                        └─► pre-delay ─► smoothing ─► inject ─┐                         │
///          ┌────────────────────────────────────►(+)─► allpass diffuser ─┬─► output mix ─(+)─► out L/R
///          │                                                             ▼
///          └── Hadamard ◄── HF damping ◄── low shelf · g ◄── delay line ◄┘
///
/// - Lines: loop delay τ_i = diffuser delay + plain delay, 16 distinct primes per room (Schroeder).
/// - Absorption per line (Jot & Chaigne 1991): mid-band gain g_i = 10^(−3·τ_i/T60mid); a one-pole
///   low shelf lifts the gain below the crossover to 10^(−3·τ_i/T60low) (zita-rev1's rtlow/rtmid
///   split); a one-pole low-pass with pole b_i makes the gain at the damping frequency g_i², i.e.
///   T60 there is half the mid-band T60 (zita-rev1's "fdamp"). Every line's filter is derived from
///   its own τ_i, so at any frequency all modes decay at the same rate.
/// - Feedback matrix: 8×8 Sylvester–Hadamard / √8 (orthogonal, lossless), three butterfly stages;
///   the 1/√8 is folded into the line gains.
/// - Diffuser: Schroeder allpass in each line, w[n] = f[n] + g·w[n−M], v[n] = w[n−M] − g·w[n].
/// - Input bandwidth: the late reverb's input is smoothed by a short triangular FIR (¼, ½, ¼ at
///   48 kHz; `ReverbTuning.inputSmoothingSeconds`), after Dattorro's plate ("Effect Design", 1997).
/// - Early reflections: four taps per output side on the input history (`ReverbTuning`).
/// - Injection and outputs: fixed ±1 patterns over the lines (written out in `ReverbCore.render`):
///   the left input feeds lines 0, 2, 4, 6 with signs (+ − + −), the right input lines 1, 3, 5, 7
///   with (− + − +); out L = (+ − + − − + − +)·v, out R = (+ + − − − − + +)·v. As vectors:
///   in_L = (h2 + h3)/2, in_R = (h3 − h2)/2, out_L = h5, out_R = h6 (h_k: rows of the Hadamard
///   matrix), all mutually orthogonal: the outputs are uncorrelated mixes of the lines and a mono
///   input has no path from the diffusers' feed-forward term straight to the outputs. The outputs
///   are scaled per room to a common energy gain (`ReverbTuning.lateEnergy`), so rooms are about
///   equally loud.
///
/// Vectorisation: the network runs in groups of 8 samples. Every delay in the network (lines,
/// diffusers, pre-delay, early taps) is at least 8 samples, so a group reads only data written
/// before it: each line's 8 samples are one contiguous vector load, the diffusers, injection,
/// Hadamard, outputs and stores all work on such per-line vectors, and only the two recursive
/// one-pole filters run sample by sample — with the 8 lines across a `SIMD8<Float>`, between two
/// 8×8 transposes. A group's output is computed when its first input sample arrives (it does not
/// depend on that group's input) and handed out sample by sample, so the result does not depend
/// on how the caller splits its blocks, and there is no added latency.
///
/// Room changes: two FDN cores share the input history. `setRoom(_:crossfadeFrames:)` clears the
/// idle core, gives it the new room and, from the next 8-sample group boundary, fades with an
/// EQUAL-POWER law (g_old = cos(π/2·x), g_new = sin(π/2·x), x from 0 to 1 over the fade). Both
/// cores receive the input during the fade, so the old room's tail keeps evolving as it fades.
///
/// Denormals: an offset of ±`ReverbTuning.antiDenormal` (1e-20), alternating in sign from sample
/// to sample, is added to every line's input, so the network settles on a ~1e-20 floor (−400 dB)
/// instead of decaying into the subnormal range; input samples below 1e-30 in magnitude are
/// flushed to 0. Every state and output value is therefore 0 or a normal float.
///
/// Realtime: `process`, `reset` and `setRoom` are `@_noLocks`; all buffers and every room's
/// coefficients are made in `prepare`.
///
/// Ownership: the struct holds unsafe pointers to the buffers `prepare` allocates; copies share
/// them, so keep one owner, call `deallocate()` once when done, and never use it from two
/// threads at once. (`@unchecked Sendable` so the owner can hand it to the audio thread.)
public struct Reverb: @unchecked Sendable {
    /// Input history: two planar rings (left, then right) of `historyLength + 8` floats each; the
    /// last 8 mirror the first 8 so that any 8 consecutive samples are contiguous.
    var history: UnsafeMutablePointer<Float>? = nil
    var historyLength = 0
    /// Index of the next input sample in the history ring (a multiple of 8 at group starts).
    var historyWrite = 0
    /// Position inside the current 8-sample group (0: the next sample starts a group).
    var phase = 0
    /// The current group's output, computed at its start.
    var groupLeft = SIMD8<Float>(repeating: 0)
    var groupRight = SIMD8<Float>(repeating: 0)
    /// `ReverbTuning.inputFlush`, copied (reading a `static let` is a call on the render path).
    var inputFlush: Float = ReverbTuning.inputFlush
    /// Coefficients of every room at the prepared rate, indexed by `Room.index`.
    var table: UnsafeMutablePointer<ReverbCoefficients>? = nil

    /// The core that is heard (fading out during a crossfade).
    var active = ReverbCore()
    /// The core fading in during a crossfade (idle otherwise).
    var incoming = ReverbCore()
    /// Length of the running crossfade (samples; 0: none) and how much of it is done.
    var fadeLength = 0
    var fadeDone = 0
    /// A room requested while a fade was running; it starts when that fade ends.
    var pendingRoom: Room? = nil
    var pendingFrames = 0
    /// The room most recently asked for (what `room` reports).
    var requestedRoom: Room = .mediumHall

    /// The prepared sample rate (Hz) and largest block (frames); 0 before `prepare`.
    public private(set) var sampleRate: Double = 0
    public private(set) var maxFrames: Int = 0

    public init() {}

    /// The room most recently set (during a crossfade: the room being faded to).
    public var room: Room { requestedRoom }

    // MARK: Setup (not realtime)

    /// Allocates every buffer for the largest room at this rate; precomputes every room's
    /// coefficients. The only place that allocates. `sampleRate` in Hz (8 k…768 k); `maxFrames`
    /// is the largest block `process` will get (recorded only: the reverb needs no per-block
    /// scratch). Calling it again re-prepares (it frees the previous buffers first) and clears
    /// all state; the room is kept.
    public mutating func prepare(sampleRate: Double, maxFrames: Int) {
        deallocate()
        precondition(sampleRate >= 8000 && sampleRate <= 768_000, "unsupported sample rate")
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames

        let rooms = Room.allCases
        let table = UnsafeMutablePointer<ReverbCoefficients>.allocate(capacity: rooms.count)
        var maxLine = 8, maxDiffuser = 8, maxHistory = 8
        for room in rooms {
            let c = ReverbCoefficients(room: room, sampleRate: sampleRate)
            (table + room.index).initialize(to: c)
            maxLine = max(maxLine, c.longestLine)
            maxDiffuser = max(maxDiffuser, c.longestDiffuser)
            maxHistory = max(maxHistory, c.longestHistory)
        }
        self.table = table

        historyLength = Self.powerOfTwo(atLeast: maxHistory + 8)
        let history = UnsafeMutablePointer<Float>.allocate(capacity: 2 * (historyLength + 8))
        history.initialize(repeating: 0, count: 2 * (historyLength + 8))
        self.history = history
        historyWrite = 0
        phase = 0
        groupLeft = .zero
        groupRight = .zero

        let lineLength = Self.powerOfTwo(atLeast: maxLine)
        let diffuserLength = Self.powerOfTwo(atLeast: maxDiffuser)
        active = ReverbCore(lineLength: lineLength, diffuserLength: diffuserLength)
        incoming = ReverbCore(lineLength: lineLength, diffuserLength: diffuserLength)
        active.load(table[requestedRoom.index], room: requestedRoom)
        incoming.load(table[requestedRoom.index], room: requestedRoom)
        fadeLength = 0
        fadeDone = 0
        pendingRoom = nil
    }

    /// Frees what `prepare` allocated. Safe to call more than once; afterwards `process`
    /// outputs silence until `prepare` is called again.
    public mutating func deallocate() {
        active.deallocate()
        incoming.deallocate()
        history?.deallocate()
        history = nil
        table?.deallocate()
        table = nil
        fadeLength = 0
        fadeDone = 0
        pendingRoom = nil
        sampleRate = 0
    }

    static func powerOfTwo(atLeast n: Int) -> Int {
        var p = 8
        while p < n { p <<= 1 }
        return p
    }

    // MARK: Realtime control

    /// Clears all state (silence), keeps the room; a running crossfade ends at once (on the
    /// room being faded to) and a queued room change is dropped.
    /// - Realtime: safe
    @_noLocks public mutating func reset() {
        guard let history else { return }
        if fadeLength > 0 { finishFade() }
        pendingRoom = nil
        history.update(repeating: 0, count: 2 * (historyLength + 8))
        historyWrite = 0
        phase = 0
        groupLeft = .zero
        groupRight = .zero
        active.clearAll()
        incoming.clearAll()
    }

    /// Switches room. With `crossfadeFrames > 0` the output crossfades, with an equal-power law,
    /// from the old room (whose tail keeps evolving) to the new room over that many samples,
    /// starting at the next 8-sample group boundary (≤ 7 samples later); the new room starts from
    /// silence, fed from the shared input history. A request made during a running fade is
    /// queued and starts when that fade ends (the last request wins).
    /// `crossfadeFrames == 0` switches at once (for setup): the heard core is silenced and takes
    /// the new room; a running fade and a queued request are dropped.
    /// - Realtime: safe
    @_noLocks public mutating func setRoom(_ room: Room, crossfadeFrames: Int) {
        requestedRoom = room
        guard let table else { return }
        if crossfadeFrames <= 0 {
            fadeLength = 0
            fadeDone = 0
            pendingRoom = nil
            active.load(table[room.index], room: room)
            active.clearWindow()
            return
        }
        if fadeLength > 0 {
            if room.index == incoming.room.index {
                pendingRoom = nil
            } else {
                pendingRoom = room
                pendingFrames = crossfadeFrames
            }
            return
        }
        pendingRoom = nil
        if room.index == active.room.index { return }
        startFade(to: room, frames: crossfadeFrames, table: table)
    }

    @inline(__always)
    mutating func startFade(to room: Room, frames: Int,
                            table: UnsafeMutablePointer<ReverbCoefficients>) {
        incoming.load(table[room.index], room: room)
        incoming.clearWindow()
        fadeLength = frames
        fadeDone = 0
    }

    /// Ends the running fade: the incoming core becomes the heard one; a queued room starts its
    /// own fade with the next group.
    @inline(__always)
    mutating func finishFade() {
        let t = active
        active = incoming
        incoming = t
        fadeLength = 0
        fadeDone = 0
        if let next = pendingRoom, let table {
            pendingRoom = nil
            if next.index != active.room.index {
                startFade(to: next, frames: pendingFrames, table: table)
            }
        }
    }

    // MARK: Audio

    /// 100 % wet stereo output for `frames` input samples (`frames ≤ maxFrames`). Input and
    /// output may NOT alias. Splitting a block into several calls of any sizes gives
    /// bit-identical output. Unprepared: writes silence.
    /// - Realtime: safe
    @_noLocks public mutating func process(
        inputLeft: UnsafePointer<Float>, inputRight: UnsafePointer<Float>,
        outputLeft: UnsafeMutablePointer<Float>, outputRight: UnsafeMutablePointer<Float>,
        frames: Int
    ) {
        guard frames > 0 else { return }
        guard let history else {
            outputLeft.update(repeating: 0, count: frames)
            outputRight.update(repeating: 0, count: frames)
            return
        }
        var k = 0
        // Finish a group begun in an earlier call.
        while phase != 0 && k < frames {
            pushInput(history, inputLeft[k], inputRight[k])
            outputLeft[k] = groupLeft[phase]
            outputRight[k] = groupRight[phase]
            phase = (phase + 1) & 7
            k += 1
        }
        // Whole groups, straight to the output.
        while frames - k >= 8 {
            let (l, r) = renderGroup(history)
            pushGroup(history, UnsafeRawPointer(inputLeft + k).loadUnaligned(as: SIMD8<Float>.self),
                      UnsafeRawPointer(inputRight + k).loadUnaligned(as: SIMD8<Float>.self))
            UnsafeMutableRawPointer(outputLeft + k).storeBytes(of: l, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(outputRight + k).storeBytes(of: r, as: SIMD8<Float>.self)
            k &+= 8
        }
        // Start a group that this call only partly covers.
        if k < frames {
            (groupLeft, groupRight) = renderGroup(history)
            while k < frames {
                pushInput(history, inputLeft[k], inputRight[k])
                outputLeft[k] = groupLeft[phase]
                outputRight[k] = groupRight[phase]
                phase += 1
                k += 1
            }
        }
    }

    /// Stores one input frame into the history (flushing magnitudes below `inputFlush` to 0,
    /// so no subnormal input reaches the taps) and advances the write index.
    @inline(__always)
    mutating func pushInput(_ history: UnsafeMutablePointer<Float>, _ l: Float, _ r: Float) {
        let i = historyWrite
        let stride = historyLength + 8
        let cl: Float = abs(l) < inputFlush ? 0 : l
        let cr: Float = abs(r) < inputFlush ? 0 : r
        history[i] = cl
        history[stride + i] = cr
        if i < 8 {
            history[historyLength + i] = cl
            history[stride + historyLength + i] = cr
        }
        historyWrite = (i + 1) & (historyLength - 1)
    }

    /// `pushInput` for a whole group (the write index is a multiple of 8).
    @inline(__always)
    mutating func pushGroup(_ history: UnsafeMutablePointer<Float>, _ l: SIMD8<Float>, _ r: SIMD8<Float>) {
        let i = historyWrite
        let stride = historyLength &+ 8
        let t = inputFlush
        let cl = l.replacing(with: 0, where: (l .< t) .& (l .> -t))
        let cr = r.replacing(with: 0, where: (r .< t) .& (r .> -t))
        ReverbCore.store(cl, history + i)
        ReverbCore.store(cr, history + (stride &+ i))
        if i == 0 {
            ReverbCore.store(cl, history + historyLength)
            ReverbCore.store(cr, history + (stride &+ historyLength))
        }
        historyWrite = (i &+ 8) & (historyLength &- 1)
    }

    /// The output of the group starting at the history write index (which is a multiple of 8);
    /// reads only history older than the group.
    @inline(__always)
    mutating func renderGroup(_ history: UnsafeMutablePointer<Float>) -> (SIMD8<Float>, SIMD8<Float>) {
        let h = HistoryView(base: history, stride: historyLength + 8, mask: historyLength - 1,
                            write: historyWrite)
        if fadeLength == 0 {
            return active.render(h)
        }
        let (al, ar) = active.render(h)
        let (bl, br) = incoming.render(h)
        // Fade position of each sample of the group: x = (done + j + 1)/length, clamped to 1.
        let j = SIMD8<Float>(1, 2, 3, 4, 5, 6, 7, 8)
        let x = ((Float(fadeDone) + j) * (1 / Float(fadeLength)))
            .replacing(with: 1, where: j .> Float(fadeLength - fadeDone))
        let gIn = Self.quarterSine(x)
        let gOut = Self.quarterSine(1 - x)
        fadeDone += 8
        if fadeDone >= fadeLength { finishFade() }
        return (gOut * al + gIn * bl, gOut * ar + gIn * br)
    }

    // MARK: Inspection (tests)

    /// Calls `body` with every float of the state: the input history, both cores' delay lines,
    /// diffusers and filter states, and the current group's output. Not realtime.
    func forEachStateValue(_ body: (Float) -> Void) {
        if let history {
            for i in 0..<(2 * (historyLength + 8)) { body(history[i]) }
        }
        for v in [groupLeft, groupRight] { for i in 0..<8 { body(v[i]) } }
        active.forEachStateValue(body)
        incoming.forEachStateValue(body)
    }

    /// sin(π/2·x) for x in [0, 1], odd Taylor polynomial to θ¹¹ (|error| < 6e-8, float
    /// resolution; exactly 0 at 0).
    @inline(__always)
    static func quarterSine(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let t = x * (Float.pi / 2)
        let t2 = t * t
        var p = SIMD8<Float>(repeating: -1.0 / 39_916_800)
        p = p * t2 + (1.0 / 362_880)
        p = p * t2 + (-1.0 / 5040)
        p = p * t2 + (1.0 / 120)
        p = p * t2 + (-1.0 / 6)
        p = p * t2 + 1
        return t * p
    }
}

/// Where a group's input lives: planar history rings (right = left + stride) and the index of
/// the group's first sample.
struct HistoryView {
    let base: UnsafeMutablePointer<Float>
    let stride: Int
    let mask: Int
    let write: Int

    /// The 8 samples of `channel` (0: L, 1: R) starting `delay` samples before the group.
    @inline(__always)
    func load(delay: Int, channel: Int) -> SIMD8<Float> {
        let p = base + (channel &* stride &+ ((write &- delay) & mask))
        return UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
}

/// Everything a core needs for one room at one sample rate; built in `prepare`.
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

    /// The coefficients of `room` at `fs` Hz, from its `ReverbTuning` (or another tuning, for
    /// tuning experiments).
    init(room: Room, sampleRate fs: Double, tuning: ReverbTuning.RoomTuning? = nil) {
        let t = tuning ?? ReverbTuning.tuning(room)
        let midT60 = room.targetDecaySeconds * t.calibration
        let lowT60 = midT60 * t.lowRatio
        let cosW = RackMath.cos(2 * RackMath.pi * t.damping / fs)
        let invRoot8 = 1 / Self.squareRoot(8)

        var lineDelay = SIMD8<Int32>(repeating: 8)
        var diffuserDelay = SIMD8<Int32>(repeating: 8)
        var gain = SIMD8<Float>(repeating: 0)
        var lowShelf = SIMD8<Float>(repeating: 0)
        var damping = SIMD8<Float>(repeating: 0)
        var used: [Int] = []
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
            gain[i] = Float(gMid * invRoot8)
            lowShelf[i] = Float((gLow - gMid) * invRoot8)
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
            for i in 0..<8 {
                meanPower += Self.loopPower(at: w, gain: lineGain[i], lowShelf: lineShelf[i],
                                            lowCoefficient: crossoverCoefficient,
                                            damping: linePole[i]) / 8
            }
            // Boxcar of B samples, squared: S(w) = (sin(Bw/2)/(B·sin(w/2)))².
            let box = RackMath.sin(smoothB * w / 2) / (smoothB * RackMath.sin(w / 2))
            let smoothing = box * box * box * box
            let lines = 8 / (1 - meanPower) - 8 * t.diffusion * t.diffusion
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
        longestDiffuser = Int(diffuserDelay.max())
    }

    /// Nearest whole number of samples for a non-negative count (no libm `round`).
    static func samples(_ x: Double) -> Int { Int(x + 0.5) }

    /// √x for x ≥ 0 via RackMath (Double.squareRoot() can fall back to libm's sqrt, which
    /// RackDSP does not link).
    static func squareRoot(_ x: Double) -> Double {
        x > 0 ? RackMath.exp2(0.5 * RackMath.log2(x)) : 0
    }

    /// |G(e^{jw})|² of one line's absorption: gain·|1 + s·a/(1 − (1−a)·e^{−jw})|²·
    /// |(1−b)/(1 − b·e^{−jw})|², with s = lowShelf/gain and a the crossover coefficient (the
    /// low shelf x + s·LP(x), then the HF one-pole).
    static func loopPower(at w: Double, gain: Double, lowShelf: Double, lowCoefficient a: Double,
                          damping b: Double) -> Double {
        let (sinW, cosW) = RackMath.sincos(w)
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

/// Eight per-line vectors of 8 samples (or, transposed, eight per-sample vectors of 8 lines).
struct Block8 {
    var v0, v1, v2, v3, v4, v5, v6, v7: SIMD8<Float>

    @inline(__always)
    init(_ v0: SIMD8<Float>, _ v1: SIMD8<Float>, _ v2: SIMD8<Float>, _ v3: SIMD8<Float>,
         _ v4: SIMD8<Float>, _ v5: SIMD8<Float>, _ v6: SIMD8<Float>, _ v7: SIMD8<Float>) {
        (self.v0, self.v1, self.v2, self.v3) = (v0, v1, v2, v3)
        (self.v4, self.v5, self.v6, self.v7) = (v4, v5, v6, v7)
    }

    /// 4×4 transpose of rows a…d: two rounds of even/odd lane selection (8 shuffles).
    @inline(__always)
    static func transpose4(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>, _ d: SIMD4<Float>)
        -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        let ab = SIMD8(lowHalf: a, highHalf: b)
        let cd = SIMD8(lowHalf: c, highHalf: d)
        let e = SIMD8(lowHalf: ab.evenHalf, highHalf: cd.evenHalf)   // a0 a2 b0 b2 c0 c2 d0 d2
        let o = SIMD8(lowHalf: ab.oddHalf, highHalf: cd.oddHalf)     // a1 a3 b1 b3 c1 c3 d1 d3
        return (e.evenHalf, o.evenHalf, e.oddHalf, o.oddHalf)
    }

    /// 8×8 transpose, as four 4×4 blocks.
    @inline(__always)
    func transposed() -> Block8 {
        let (a0, a1, a2, a3) = Self.transpose4(v0.lowHalf, v1.lowHalf, v2.lowHalf, v3.lowHalf)
        let (b0, b1, b2, b3) = Self.transpose4(v4.lowHalf, v5.lowHalf, v6.lowHalf, v7.lowHalf)
        let (c0, c1, c2, c3) = Self.transpose4(v0.highHalf, v1.highHalf, v2.highHalf, v3.highHalf)
        let (d0, d1, d2, d3) = Self.transpose4(v4.highHalf, v5.highHalf, v6.highHalf, v7.highHalf)
        return Block8(SIMD8(lowHalf: a0, highHalf: b0), SIMD8(lowHalf: a1, highHalf: b1),
                      SIMD8(lowHalf: a2, highHalf: b2), SIMD8(lowHalf: a3, highHalf: b3),
                      SIMD8(lowHalf: c0, highHalf: d0), SIMD8(lowHalf: c1, highHalf: d1),
                      SIMD8(lowHalf: c2, highHalf: d2), SIMD8(lowHalf: c3, highHalf: d3))
    }
}

/// One FDN: eight delay lines with their diffusers and filters, running one room.
struct ReverbCore {
    /// Eight delay rings of `lineMask + 1` floats plus an 8-float mirror of their start (so any
    /// 8 consecutive samples are contiguous), line i at i·`lineStride`.
    var lines: UnsafeMutablePointer<Float>? = nil
    /// The same for the eight diffuser delays.
    var diffusers: UnsafeMutablePointer<Float>? = nil
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
    /// The room's coefficients (a copy from the table).
    var k = ReverbCoefficients()
    var room: Room = .mediumHall

    init() {}

    init(lineLength: Int, diffuserLength: Int) {
        lineMask = lineLength - 1
        lineStride = lineLength + 8
        diffuserMask = diffuserLength - 1
        diffuserStride = diffuserLength + 8
        let l = UnsafeMutablePointer<Float>.allocate(capacity: 8 * lineStride)
        l.initialize(repeating: 0, count: 8 * lineStride)
        let d = UnsafeMutablePointer<Float>.allocate(capacity: 8 * diffuserStride)
        d.initialize(repeating: 0, count: 8 * diffuserStride)
        lines = l
        diffusers = d
    }

    mutating func deallocate() {
        lines?.deallocate()
        diffusers?.deallocate()
        lines = nil
        diffusers = nil
    }

    func forEachStateValue(_ body: (Float) -> Void) {
        if let lines { for i in 0..<(8 * lineStride) { body(lines[i]) } }
        if let diffusers { for i in 0..<(8 * diffuserStride) { body(diffusers[i]) } }
        for v in [lowState, dampState] { for i in 0..<8 { body(v[i]) } }
    }

    @inline(__always)
    mutating func load(_ coefficients: ReverbCoefficients, room: Room) {
        k = coefficients
        self.room = room
    }

    /// Silence: every buffer and filter state to 0.
    @inline(__always)
    mutating func clearAll() {
        lines?.update(repeating: 0, count: 8 * lineStride)
        diffusers?.update(repeating: 0, count: 8 * diffuserStride)
        lowState = .zero
        dampState = .zero
    }

    /// Silence for the current room, touching only what its delays will read before it is
    /// overwritten: the `delay` samples behind the write position of each line and diffuser.
    @inline(__always)
    mutating func clearWindow() {
        guard let lines, let diffusers else { return }
        for i in 0..<8 {
            Self.clearBehind(lines + i * lineStride, lineMask, position, Int(k.lineDelay[i]))
            Self.clearBehind(diffusers + i * diffuserStride, diffuserMask,
                             position & diffuserMask, Int(k.diffuserDelay[i]))
        }
        lowState = .zero
        dampState = .zero
    }

    /// Zeroes the `count` slots before `position` in a ring of `mask + 1` floats followed by its
    /// 8-float mirror, and refreshes the mirror.
    @inline(__always)
    static func clearBehind(_ ring: UnsafeMutablePointer<Float>, _ mask: Int, _ position: Int,
                            _ count: Int) {
        let start = (position - count) & mask
        let first = min(count, mask + 1 - start)
        (ring + start).update(repeating: 0, count: first)
        if count > first { ring.update(repeating: 0, count: count - first) }
        store(load(ring), ring + mask + 1)
    }

    @inline(__always)
    static func load(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    static func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }

    /// One sample of the absorption filters for all 8 lines (lanes): the crossover low-pass
    /// `lo` feeds the low shelf, y = gain·x + lowShelf·lo, then the HF damping one-pole
    /// hf = (1−b)·y + b·hf₋₁ (with (1−b) folded into `g` and `c`).
    @inline(__always)
    static func absorb(_ x: SIMD8<Float>, _ lo: inout SIMD8<Float>, _ hf: inout SIMD8<Float>,
                       _ wl: SIMD8<Float>, _ g: SIMD8<Float>, _ c: SIMD8<Float>, _ b: SIMD8<Float>)
        -> SIMD8<Float> {
        lo = (1 - wl) * lo + wl * x
        hf = g * x + c * lo + b * hf
        return hf
    }

    /// The allpass diffuser of one line over a group: reads w₋M at `read`, writes
    /// w = f + g·w₋M into the diffuser ring at `ring` and v = w₋M − g·w into the delay line at
    /// `line`, returns v.
    @inline(__always)
    static func diffuse(_ f: SIMD8<Float>, _ read: UnsafeMutablePointer<Float>,
                        _ ring: UnsafeMutablePointer<Float>, _ line: UnsafeMutablePointer<Float>,
                        _ g: SIMD8<Float>) -> SIMD8<Float> {
        let z = load(read)
        let w = f + g * z
        let v = z - g * w
        store(w, ring)
        store(v, line)
        return v
    }

    /// One 8-sample group: returns the (left, right) output of the group that starts at the
    /// history's write index. Needs every delay ≥ 8 (guaranteed by `ReverbCoefficients`).
    @inline(__always)
    mutating func render(_ h: HistoryView) -> (SIMD8<Float>, SIMD8<Float>) {
        guard let lines, let diffusers else { return (.zero, .zero) }
        let p = position
        let ls = lineStride, lm = lineMask
        let d = k.lineDelay

        // Delay-line outputs for the group, one vector per line (older than the group).
        let u = Block8(
            Self.load(lines + ((p &- Int(d[0])) & lm)),
            Self.load(lines + (ls &+ ((p &- Int(d[1])) & lm))),
            Self.load(lines + (2 &* ls &+ ((p &- Int(d[2])) & lm))),
            Self.load(lines + (3 &* ls &+ ((p &- Int(d[3])) & lm))),
            Self.load(lines + (4 &* ls &+ ((p &- Int(d[4])) & lm))),
            Self.load(lines + (5 &* ls &+ ((p &- Int(d[5])) & lm))),
            Self.load(lines + (6 &* ls &+ ((p &- Int(d[6])) & lm))),
            Self.load(lines + (7 &* ls &+ ((p &- Int(d[7])) & lm)))
        ).transposed()

        // Absorption, sample by sample with the lines across the lanes: low shelf (one-pole
        // low-pass state at the crossover) and mid-band gain, then the HF one-pole low-pass.
        let wl = SIMD8(repeating: k.lowCoefficient), g = k.dampedGain, c = k.dampedShelf, b = k.damping
        var lo = lowState, hf = dampState
        let s = Block8(
            Self.absorb(u.v0, &lo, &hf, wl, g, c, b), Self.absorb(u.v1, &lo, &hf, wl, g, c, b),
            Self.absorb(u.v2, &lo, &hf, wl, g, c, b), Self.absorb(u.v3, &lo, &hf, wl, g, c, b),
            Self.absorb(u.v4, &lo, &hf, wl, g, c, b), Self.absorb(u.v5, &lo, &hf, wl, g, c, b),
            Self.absorb(u.v6, &lo, &hf, wl, g, c, b), Self.absorb(u.v7, &lo, &hf, wl, g, c, b))
        lowState = lo
        dampState = hf

        // Back to one vector per line; Hadamard feedback across the lines (its last stage is
        // done pair by pair below, so each pair's vectors die as soon as they are used).
        let t = s.transposed()
        let a0 = t.v0 + t.v1, a1 = t.v0 - t.v1, a2 = t.v2 + t.v3, a3 = t.v2 - t.v3
        let a4 = t.v4 + t.v5, a5 = t.v4 - t.v5, a6 = t.v6 + t.v7, a7 = t.v6 - t.v7
        let b0 = a0 + a2, b1 = a1 + a3, b2 = a0 - a2, b3 = a1 - a3
        let b4 = a4 + a6, b5 = a5 + a7, b6 = a4 - a6, b7 = a5 - a7

        // Pre-delayed input, smoothed (input bandwidth: a triangle of 2B − 1 taps with weights
        // (B − |j − B + 1|)/B², B = `smoothLength`), plus the alternating anti-denormal offset;
        // injected below with the fixed sign patterns (L → lines 0 2 4 6 as + − + −,
        // R → lines 1 3 5 7 as − + − +).
        let pd = k.preDelay, bl = k.smoothLength
        var xl: SIMD8<Float>, xr: SIMD8<Float>
        if bl == 2 {                                     // (¼, ½, ¼), 44.1/48 kHz
            xl = 0.25 * (h.load(delay: pd, channel: 0) + h.load(delay: pd &+ 2, channel: 0))
                + 0.5 * h.load(delay: pd &+ 1, channel: 0)
            xr = 0.25 * (h.load(delay: pd, channel: 1) + h.load(delay: pd &+ 2, channel: 1))
                + 0.5 * h.load(delay: pd &+ 1, channel: 1)
        } else {
            xl = .zero
            xr = .zero
            let scale = 1 / Float(bl &* bl)
            var j = 0
            while j < 2 &* bl &- 1 {
                let wj = Float(bl &- abs(j &- bl &+ 1)) * scale
                xl += wj * h.load(delay: pd &+ j, channel: 0)
                xr += wj * h.load(delay: pd &+ j, channel: 1)
                j &+= 1
            }
        }
        xl += k.antiDenormal
        xr += k.antiDenormal

        // Allpass diffusers w = f + g·w₋M, v = w₋M − g·w, and the writes.
        let ad = k.diffuserDelay
        let ds = diffuserStride, dm = diffuserMask
        let dp = p & dm
        let gd = SIMD8(repeating: k.diffusion)
        let dw = diffusers + dp, lw = lines + p
        // Each line i: f_i ± input, through its diffuser; the outputs accumulate
        // L = (+ − + − − + − +)·v and R = (+ + − − − − + +)·v.
        var v = Self.diffuse(b0 + b4 + xl, diffusers + ((dp &- Int(ad[0])) & dm), dw, lw, gd)
        var left = v, right = v
        v = Self.diffuse(b0 - b4 + xl, diffusers + (4 &* ds &+ ((dp &- Int(ad[4])) & dm)),
                         dw + 4 &* ds, lw + 4 &* ls, gd)
        left -= v; right -= v
        v = Self.diffuse(b1 + b5 - xr, diffusers + (ds &+ ((dp &- Int(ad[1])) & dm)),
                         dw + ds, lw + ls, gd)
        left -= v; right += v
        v = Self.diffuse(b1 - b5 - xr, diffusers + (5 &* ds &+ ((dp &- Int(ad[5])) & dm)),
                         dw + 5 &* ds, lw + 5 &* ls, gd)
        left += v; right -= v
        v = Self.diffuse(b2 + b6 - xl, diffusers + (2 &* ds &+ ((dp &- Int(ad[2])) & dm)),
                         dw + 2 &* ds, lw + 2 &* ls, gd)
        left += v; right -= v
        v = Self.diffuse(b2 - b6 - xl, diffusers + (6 &* ds &+ ((dp &- Int(ad[6])) & dm)),
                         dw + 6 &* ds, lw + 6 &* ls, gd)
        left -= v; right += v
        v = Self.diffuse(b3 + b7 + xr, diffusers + (3 &* ds &+ ((dp &- Int(ad[3])) & dm)),
                         dw + 3 &* ds, lw + 3 &* ls, gd)
        left -= v; right -= v
        v = Self.diffuse(b3 - b7 + xr, diffusers + (7 &* ds &+ ((dp &- Int(ad[7])) & dm)),
                         dw + 7 &* ds, lw + 7 &* ls, gd)
        left += v; right += v
        left *= k.outputScale
        right *= k.outputScale

        // The rings' first 8 floats are mirrored after their end, so that 8 consecutive samples
        // are always contiguous: refresh the mirrors when this group wrote the first 8 (no
        // read of this group touches them: every delay is ≥ 8).
        if p == 0 {
            for i in 0..<8 {
                let line = lines + i &* ls
                Self.store(Self.load(line), line + (lm &+ 1))
            }
        }
        if dp == 0 {
            for i in 0..<8 {
                let ring = diffusers + i &* ds
                Self.store(Self.load(ring), ring + (dm &+ 1))
            }
        }
        position = (p &+ 8) & lm

        // Early reflections.
        let ed = k.earlyDelay, ec = k.earlyChannel, eg = k.earlyGain
        left += eg[0] * h.load(delay: Int(ed[0]), channel: Int(ec[0]))
        left += eg[1] * h.load(delay: Int(ed[1]), channel: Int(ec[1]))
        left += eg[2] * h.load(delay: Int(ed[2]), channel: Int(ec[2]))
        left += eg[3] * h.load(delay: Int(ed[3]), channel: Int(ec[3]))
        right += eg[4] * h.load(delay: Int(ed[4]), channel: Int(ec[4]))
        right += eg[5] * h.load(delay: Int(ed[5]), channel: Int(ec[5]))
        right += eg[6] * h.load(delay: Int(ed[6]), channel: Int(ec[6]))
        right += eg[7] * h.load(delay: Int(ed[7]), channel: Int(ec[7]))
        return (left, right)
    }
}

extension Room {
    /// Position in `Room.allCases` (0…12), by an exhaustive switch: unlike the synthesized
    /// `rawValue` and `==`, the `@_noLocks` checker can see into it.
    @inline(__always)
    var index: Int {
        switch self {
        case .smallRoom: 0
        case .mediumRoom: 1
        case .largeRoom: 2
        case .largeRoom2: 3
        case .mediumChamber: 4
        case .largeChamber: 5
        case .plate: 6
        case .mediumHall: 7
        case .mediumHall2: 8
        case .mediumHall3: 9
        case .largeHall: 10
        case .largeHall2: 11
        case .cathedral: 12
        }
    }
}
