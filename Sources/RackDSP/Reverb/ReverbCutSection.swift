/// One second-order Butterworth section (trapezoidal state-variable filter, Simper 2013), both
/// channels in the lanes of a `SIMD2`; the corner is pre-warped, so the −3 dB point is exactly
/// `cornerHz`.
/// - Gliding: a corner that moves along a shape's glide (`ReverbShapeGlide`) is set once per
///   8-sample group, for the glide's value at the group's end; the group's samples move the
///   tangent g = tan(π·f_c/fs) in equal steps from the last setting's to the new one's,
///   sample j at (j + 1)/8 of the way (the coefficients at each sample are those of one g, so
///   every sample is a valid SVF), reaching the new coefficients at the group's last sample.
///   (Held for the group, the coefficients stepped every 8 samples: a cut's default 20 ms ramp
///   splattered 11–17 dB more above 8 kHz than its 200 ms ramp.)
/// - Switching: its output crossfades from the input to the filtered signal when it switches
///   on, and back when it switches off, over `engageSeconds`, with raised-cosine timing
///   (the filtered share is sin²(π/2·x), x the fade's elapsed fraction: it leaves and reaches
///   its ends with zero slope, as the ramps of the corners do). A linear share put a kink where
///   the fade ended, and the engage's default ramp ended its fade on a large difference
///   between the two signals.
struct CutSection {
    /// The SVF's coefficients: g = tan(π·f_c/fs), k = 1/Q = √2, a1 = 1/(1 + g(g + k)),
    /// a2 = g·a1, a3 = g·a2; the output is m0·x + m1·band + m2·low (low-pass: 0, 0, 1;
    /// high-pass: 1, −k, −1).
    var a1: Float = 0, a2: Float = 0, a3: Float = 0, m0: Float = 0, m1: Float = 0, m2: Float = 1
    /// The tangent g of `a1`…`a3`, and, while the next group glides to them, the one it
    /// glides from.
    var g: Float = 0
    var glidingFrom: Float? = nil
    /// The setting: on (a corner inside the range) or off.
    var enabled = false
    /// The filter runs (its states move): while on, and until a switch-off's fade has ended.
    var running = false
    /// Where the switching crossfade is (samples: 0, the input untouched … `fadeFrames`,
    /// filtered), moving towards `fadeFrames` while on and towards 0 while off.
    var fadePosition = 0
    var fadeFrames = 1
    /// The two integrators' states (ic1eq, ic2eq) per channel: lanes (left ic1, right ic1, left ic2, right ic2).
    var state = SIMD4<Float>.zero

    /// √2: 1/Q of a Butterworth section.
    static var k: Double { @inline(__always) @_noLocks get { 1.414_213_562_373_095_1 } }

    /// Length (s) of the crossfade when a cut switches on or off: 20 ms, the engine's default
    /// ramp (`ShapingParameterTests.testRampsOfTheNewControlsDoNotSplatter` measures it).
    static var engageSeconds: Double { @inline(__always) @_noLocks get { 0.02 } }

    /// `enabled` and, when on, the coefficients for `cornerHz` at `fs` Hz (switched off, the
    /// last coefficients stay for the fade out). `immediately`: no crossfade (nothing has
    /// sounded since a reset). `gliding`: the next group moves the coefficients from the
    /// running ones to these, sample by sample (a section not running has none to move from:
    /// it takes these at once).
    @_noLocks @inline(__always)
    mutating func set(highPass: Bool, cornerHz: Double, enabled: Bool, sampleRate fs: Double,
                      immediately: Bool, gliding: Bool) {
        let wasRunning = running
        self.enabled = enabled
        fadeFrames = max(1, Int(Self.engageSeconds * fs + 0.5))
        if enabled { running = true }
        if immediately { settle() }
        glidingFrom = nil
        guard enabled else { return }
        let g = ReverbControlMath.tan(RackMath.pi * min(cornerHz, 0.49 * fs) / fs)
        let a1 = 1 / (1 + g * (g + Self.k))
        if gliding && wasRunning && !immediately { glidingFrom = self.g }
        (self.g, self.a1, a2, a3) = (Float(g), Float(a1), Float(g * a1), Float(g * g * a1))
        (m0, m1, m2) = highPass ? (1, Float(-Self.k), -1) : (0, 0, 1)
    }

    /// Empty states, the crossfade at its end: filtered if on, untouched (and not running) if off.
    @_noLocks @inline(__always)
    mutating func settle() {
        state = .zero
        fadePosition = enabled ? fadeFrames : 0
        running = enabled
        glidingFrom = nil
    }

    /// The coefficients and the filtered share of each sample of the group starting now.
    @_noLocks @inline(__always)
    func lanes() -> CutLanes {
        var lanes = CutLanes(a1: SIMD8(repeating: a1), a2: SIMD8(repeating: a2), a3: SIMD8(repeating: a3), share: nil)
        if let from = glidingFrom {
            let g8 = from + (g - from) * ReverbAbsorptionGlide.fractions
            let a1 = 1 / (1 + g8 * (g8 + Float(Self.k))), a2 = g8 * a1
            let last = SIMD8<Float>(0, 0, 0, 0, 0, 0, 0, 1) .== 1
            lanes.a1 = a1.replacing(with: self.a1, where: last)
            lanes.a2 = a2.replacing(with: self.a2, where: last)
            lanes.a3 = (g8 * a2).replacing(with: a3, where: last)
        }
        if running && !(enabled && fadePosition >= fadeFrames) {
            let j = SIMD8<Float>(1, 2, 3, 4, 5, 6, 7, 8)
            let position = enabled ? Float(fadePosition) + j : Float(fadePosition) - j
            let x = (position * (1 / Float(fadeFrames))).clamped(lowerBound: .zero, upperBound: SIMD8(repeating: 1))
            let root = Reverb.quarterSine(x)
            lanes.share = (root * root).replacing(with: 1, where: x .>= 1).replacing(with: 0, where: x .<= 0)
        }
        return lanes
    }

    /// One frame (left, right), sample `j` of the group whose `lanes` these are, while `running`.
    @_noLocks @inline(__always)
    mutating func process(_ x: SIMD2<Float>, _ lanes: CutLanes, _ j: Int) -> SIMD2<Float> {
        let ic1 = state.lowHalf, ic2 = state.highHalf
        let v3 = x - ic2
        let band = lanes.a1[j] * ic1 + lanes.a2[j] * v3
        let low = ic2 + lanes.a2[j] * ic1 + lanes.a3[j] * v3
        state = SIMD4(lowHalf: 2 * band - ic1, highHalf: 2 * low - ic2)
        let y = m0 * x + m1 * band + m2 * low
        guard let share = lanes.share else { return y }
        return x + share[j] * (y - x)
    }

    /// After a group: the glide is done, the crossfade 8 samples on (a switch-off that has
    /// ended stops the filter and empties it).
    @_noLocks @inline(__always)
    mutating func endGroup() {
        glidingFrom = nil
        if enabled {
            fadePosition = min(fadeFrames, fadePosition &+ 8)
        } else {
            fadePosition = max(0, fadePosition &- 8)
            if fadePosition == 0 { settle() }
        }
    }
}

/// One group's coefficients of a `CutSection` (per sample: all equal but while it glides) and
/// the filtered share of its output (nil: filtered only, no crossfade running).
struct CutLanes {
    var a1: SIMD8<Float>
    var a2: SIMD8<Float>
    var a3: SIMD8<Float>
    var share: SIMD8<Float>?
}
