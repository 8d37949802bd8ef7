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
///   between the input and the filtered signal over `CutSection.engageSeconds`, with
///   raised-cosine timing (the filter runs from the start of the fade in and until the end of
///   the fade out; the two signals are nearly equal at the start of an engage, where the
///   corner is at the end of its range, so the amplitude law keeps the level). A corner that
///   glides moves its coefficients sample by sample (`CutSection`). After a reset, before
///   anything has sounded, a cut takes its setting at once (nothing to click; an impulse
///   response measured with a cut set is the cut's own).
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
    /// keeps its coefficients (no tangent computed). `gliding`: a running cut moves its
    /// coefficients to the new ones over the next group (`CutSection`), instead of at once.
    @_noLocks @inline(__always)
    mutating func set(_ shape: ReverbShape, sampleRate fs: Double, gliding: Bool = false) {
        if shape.lowcutHz != lowcutHz {
            lowcutHz = shape.lowcutHz
            lowcut.set(highPass: true, cornerHz: shape.lowcutHz, enabled: shape.lowcutHz > ReverbShape.lowcutRange.lowerBound,
                       sampleRate: fs, immediately: fresh, gliding: gliding)
        }
        if shape.highcutHz != highcutHz {
            highcutHz = shape.highcutHz
            highcut.set(highPass: false, cornerHz: shape.highcutHz, enabled: shape.highcutHz < ReverbShape.highcutRange.upperBound,
                        sampleRate: fs, immediately: fresh, gliding: gliding)
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
            let lows = low.lanes(), highs = high.lanes()
            let f0 = Self.cut(SIMD2(left[0], right[0]), 0, &low, lows, &high, highs)
            let f1 = Self.cut(SIMD2(left[1], right[1]), 1, &low, lows, &high, highs)
            let f2 = Self.cut(SIMD2(left[2], right[2]), 2, &low, lows, &high, highs)
            let f3 = Self.cut(SIMD2(left[3], right[3]), 3, &low, lows, &high, highs)
            let f4 = Self.cut(SIMD2(left[4], right[4]), 4, &low, lows, &high, highs)
            let f5 = Self.cut(SIMD2(left[5], right[5]), 5, &low, lows, &high, highs)
            let f6 = Self.cut(SIMD2(left[6], right[6]), 6, &low, lows, &high, highs)
            let f7 = Self.cut(SIMD2(left[7], right[7]), 7, &low, lows, &high, highs)
            left = SIMD8(f0[0], f1[0], f2[0], f3[0], f4[0], f5[0], f6[0], f7[0])
            right = SIMD8(f0[1], f1[1], f2[1], f3[1], f4[1], f5[1], f6[1], f7[1])
            if low.running { low.endGroup() }
            if high.running { high.endGroup() }
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
    /// One frame (left, right), sample `j` of the group, through the running cuts: `lowcut`,
    /// then `highcut`, each with its group's `lanes`.
    @_noLocks @inline(__always)
    static func cut(_ frame: SIMD2<Float>, _ j: Int, _ lowcut: inout CutSection, _ lows: CutLanes,
                    _ highcut: inout CutSection, _ highs: CutLanes) -> SIMD2<Float> {
        var frame = frame
        if lowcut.running { frame = lowcut.process(frame, lows, j) }
        if highcut.running { frame = highcut.process(frame, highs, j) }
        return frame
    }
}
