/// The shaping of the reverb's wet output (after the networks are summed, so a room change's
/// tails are shaped alike): the `lowcut` high-pass, the `highcut` low-pass, then `width`.
///
/// - Cuts: second-order Butterworth sections (Q = 1/√2; the bilinear transform with its corner
///   pre-warped: −3 dB exactly at the corner, 12 dB/octave beyond), in the trapezoidal
///   state-variable form (A. Simper, "Linear Trapezoidal Integrated State Variable Filter",
///   Cytomic 2013): the same transfer function as R. Bristow-Johnson's cookbook biquad, but its
///   states are the two integrators', which stay valid when the corner moves, so a ramping
///   corner does not splatter (the transposed direct form II it replaced splattered −50 dB re
///   a 1 kHz sine above 8 kHz on a 20 ms ramp from 19 kHz to 1.5 kHz, −63 dB over 200 ms). At
///   the end of its range a cut is off (the signal untouched).
/// - Engaging and disengaging: a cut that switches on (its corner leaves the end of its range)
///   starts from empty states, and one that switches off would jump from the filtered signal
///   to the unfiltered one: either is a step in the output (a click, −43 dB of splatter above
///   8 kHz for a 1 kHz sine when `highcut` first moved). So the section's output crossfades
///   linearly between the input and the filtered signal over `CutSection.engageSeconds`
///   (the filter runs from the start of the fade in and until the end of the fade out; the
///   two signals are nearly equal at the start of an engage, where the corner is at the end
///   of its range, so the linear law keeps the level). After a reset, before anything has
///   sounded, a cut takes its setting at once (nothing to click; an impulse response measured
///   with a cut set is the cut's own).
/// - Width: mid/side, M = (L + R)/2, S = (L − R)/2·width, L = M + S, R = M − S; at width 1 the
///   signal is untouched.
///
/// Realtime: `set` and `process` are `@_noLocks`; run sample by sample (the cuts are
/// recursive) over a group of 8, left and right in the lanes of a `SIMD2`.
struct ReverbWetStage {
    var lowcut = CutSection()
    var highcut = CutSection()
    /// The width at each sample of the group (all equal but while it glides).
    var width = SIMD8<Float>(repeating: 1)
    /// True from a reset until the first group has gone through: cuts set meanwhile take their
    /// setting at once.
    var fresh = true

    /// The cut corners (Hz) the sections were last set for (NaN: not since a reset): a cut whose
    /// corner has not moved is not set again (setting it again would change nothing).
    var lowcutHz = Double.nan
    var highcutHz = Double.nan

    /// Takes the shape's cut corners and width at `fs` Hz (new coefficients, same states; a cut
    /// switching on or off crossfades, see the type's notes). A cut whose corner has not moved
    /// keeps its coefficients (no tangent computed).
    @_noLocks @inline(__always)
    mutating func set(_ shape: ReverbShape, sampleRate fs: Double) {
        if shape.lowcutHz != lowcutHz {
            lowcutHz = shape.lowcutHz
            lowcut.set(highPass: true, cornerHz: shape.lowcutHz,
                       enabled: shape.lowcutHz > ReverbShape.lowcutRange.lowerBound, sampleRate: fs, immediately: fresh)
        }
        if shape.highcutHz != highcutHz {
            highcutHz = shape.highcutHz
            highcut.set(highPass: false, cornerHz: shape.highcutHz,
                        enabled: shape.highcutHz < ReverbShape.highcutRange.upperBound, sampleRate: fs, immediately: fresh)
        }
        width = SIMD8(repeating: Float(shape.width))
    }

    /// All states to 0; a cut's crossfade ends where it was going.
    @_noLocks @inline(__always)
    mutating func reset() {
        lowcut.settle()
        highcut.settle()
        fresh = true
        (lowcutHz, highcutHz) = (.nan, .nan)
    }

    /// True when `process` changes the signal: a cut running or the width away from 1 (while
    /// false, and nothing calls `set`, it stays false: a cut only starts running from `set`).
    var isShaping: Bool { @_noLocks @inline(__always) get { lowcut.running || highcut.running || any(width .!= 1) } }

    /// One group of both channels, in place.
    @_noLocks @inline(__always)
    mutating func process(_ left: inout SIMD8<Float>, _ right: inout SIMD8<Float>) {
        fresh = false
        if lowcut.running || highcut.running {
            // On local copies (states and coefficients stay in registers for the group), and
            // written out with constant lane indices: a loop over `left[j]` stores one lane of a
            // vector in memory and reloads the whole vector each sample, which stalls (store
            // forwarding fails) and cost more than the filters. The same arithmetic, in order.
            var low = lowcut, high = highcut
            let f0 = Self.cut(SIMD2(left[0], right[0]), &low, &high)
            let f1 = Self.cut(SIMD2(left[1], right[1]), &low, &high)
            let f2 = Self.cut(SIMD2(left[2], right[2]), &low, &high)
            let f3 = Self.cut(SIMD2(left[3], right[3]), &low, &high)
            let f4 = Self.cut(SIMD2(left[4], right[4]), &low, &high)
            let f5 = Self.cut(SIMD2(left[5], right[5]), &low, &high)
            let f6 = Self.cut(SIMD2(left[6], right[6]), &low, &high)
            let f7 = Self.cut(SIMD2(left[7], right[7]), &low, &high)
            left = SIMD8(f0[0], f1[0], f2[0], f3[0], f4[0], f5[0], f6[0], f7[0])
            right = SIMD8(f0[1], f1[1], f2[1], f3[1], f4[1], f5[1], f6[1], f7[1])
            (lowcut, highcut) = (low, high)
        }
        if any(width .!= 1) {
            let mid = 0.5 * (left + right)
            let side = (0.5 * width) * (left - right)
            left = mid + side
            right = mid - side
        }
    }
}

extension ReverbWetStage {
    /// One frame (left, right) through the running cuts: `lowcut`, then `highcut`.
    @_noLocks @inline(__always)
    static func cut(_ frame: SIMD2<Float>, _ lowcut: inout CutSection, _ highcut: inout CutSection) -> SIMD2<Float> {
        var frame = frame
        if lowcut.running { frame = lowcut.process(frame) }
        if highcut.running { frame = highcut.process(frame) }
        return frame
    }
}

/// One second-order Butterworth section (trapezoidal state-variable filter, Simper 2013), both
/// channels in the lanes of a `SIMD2`; the corner is pre-warped, so the −3 dB point is exactly
/// `cornerHz`.
/// Its output crossfades from the input to the filtered signal when it switches on, and back
/// when it switches off (`engageSeconds`, linear).
struct CutSection {
    /// The SVF's coefficients: g = tan(π·f_c/fs), k = 1/Q = √2, a1 = 1/(1 + g(g + k)),
    /// a2 = g·a1, a3 = g·a2; the output is m0·x + m1·band + m2·low (low-pass: 0, 0, 1;
    /// high-pass: 1, −k, −1).
    var a1: Float = 0, a2: Float = 0, a3: Float = 0, m0: Float = 0, m1: Float = 0, m2: Float = 1
    /// The setting: on (a corner inside the range) or off.
    var enabled = false
    /// The filter runs (its states move): while on, and until a switch-off's fade has ended.
    var running = false
    /// Share of the filtered signal in the output (0: the input untouched, 1: filtered),
    /// moving towards 1 while on and towards 0 while off, by `blendStep` a sample.
    var blend: Float = 0
    var blendStep: Float = 1
    /// The two integrators' states (ic1eq, ic2eq) per channel: lanes (left ic1, right ic1, left ic2, right ic2).
    var state = SIMD4<Float>.zero

    /// Length (s) of the crossfade when a cut switches on or off: 20 ms, the engine's default
    /// ramp (a step spread over 20 ms splatters > 60 dB below a 1 kHz sine above 8 kHz,
    /// `ShapingParameterTests.testRampsOfTheNewControlsDoNotSplatter`).
    static var engageSeconds: Double { @inline(__always) @_noLocks get { 0.02 } }

    /// `enabled` and, when on, the coefficients for `cornerHz` at `fs` Hz (switched off, the
    /// last coefficients stay for the fade out). `immediately`: no crossfade (nothing has
    /// sounded since a reset).
    @_noLocks @inline(__always)
    mutating func set(highPass: Bool, cornerHz: Double, enabled: Bool, sampleRate fs: Double, immediately: Bool) {
        self.enabled = enabled
        blendStep = Float(1 / max(1, Self.engageSeconds * fs))
        if enabled { running = true }
        if immediately { settle() }
        guard enabled else { return }
        let g = ReverbControlMath.tan(RackMath.pi * min(cornerHz, 0.49 * fs) / fs)
        let k = 1.414_213_562_373_095_1
        let a1 = 1 / (1 + g * (g + k))
        (self.a1, a2, a3) = (Float(a1), Float(g * a1), Float(g * g * a1))
        (m0, m1, m2) = highPass ? (1, Float(-k), -1) : (0, 0, 1)
    }

    /// Empty states, the crossfade at its end: filtered if on, untouched (and not running) if off.
    @_noLocks @inline(__always)
    mutating func settle() {
        state = .zero
        blend = enabled ? 1 : 0
        running = enabled
    }

    /// One frame (left, right), while `running`.
    @_noLocks @inline(__always)
    mutating func process(_ x: SIMD2<Float>) -> SIMD2<Float> {
        let ic1 = state.lowHalf, ic2 = state.highHalf
        let v3 = x - ic2
        let band = a1 * ic1 + a2 * v3
        let low = ic2 + a2 * ic1 + a3 * v3
        state = SIMD4(lowHalf: 2 * band - ic1, highHalf: 2 * low - ic2)
        let y = m0 * x + m1 * band + m2 * low
        if enabled {
            if blend >= 1 { return y }
            blend = min(1, blend + blendStep)
        } else {
            blend = max(0, blend - blendStep)
            if blend <= 0 {
                settle()
                return x
            }
        }
        return x + blend * (y - x)
    }
}
