/// The shaping of the reverb's wet output (after the networks are summed, so a room change's
/// tails are shaped alike): the `lowcut` high-pass, the `highcut` low-pass, then `width`.
///
/// - Cuts: second-order Butterworth sections (the bilinear transform with its corner
///   pre-warped, R. Bristow-Johnson's "Audio EQ Cookbook", Q = 1/√2): −3 dB exactly at the
///   corner, 12 dB/octave beyond. At the end of its range a cut is off (the signal untouched).
/// - Width: mid/side, M = (L + R)/2, S = (L − R)/2·width, L = M + S, R = M − S; at width 1 the
///   signal is untouched.
///
/// Realtime: `set` and `process` are `@_noLocks`; run sample by sample (the cuts are
/// recursive) over a group of 8, left and right in the lanes of a `SIMD2`.
struct ReverbWetStage {
    var lowcut = CutSection()
    var highcut = CutSection()
    var width: Float = 1

    /// Takes the shape's cut corners and width at `fs` Hz (new coefficients, same states).
    @_noLocks @inline(__always)
    mutating func set(_ shape: ReverbShape, sampleRate fs: Double) {
        lowcut.set(highPass: true, cornerHz: shape.lowcutHz,
                   enabled: shape.lowcutHz > ReverbShape.lowcutRange.lowerBound, sampleRate: fs)
        highcut.set(highPass: false, cornerHz: shape.highcutHz,
                    enabled: shape.highcutHz < ReverbShape.highcutRange.upperBound, sampleRate: fs)
        width = Float(shape.width)
    }

    /// All states to 0.
    @_noLocks @inline(__always)
    mutating func reset() {
        lowcut.state = .zero
        highcut.state = .zero
    }

    /// One group of both channels, in place.
    @_noLocks @inline(__always)
    mutating func process(_ left: inout SIMD8<Float>, _ right: inout SIMD8<Float>) {
        if lowcut.enabled || highcut.enabled {
            for j in 0..<8 {
                var frame = SIMD2<Float>(left[j], right[j])
                if lowcut.enabled { frame = lowcut.process(frame) }
                if highcut.enabled { frame = highcut.process(frame) }
                left[j] = frame[0]
                right[j] = frame[1]
            }
        }
        if width != 1 {
            let mid = 0.5 * (left + right)
            let side = (0.5 * width) * (left - right)
            left = mid + side
            right = mid - side
        }
    }
}

/// One second-order Butterworth section (transposed direct form II), both channels in the
/// lanes of a `SIMD2`; the corner is pre-warped, so the −3 dB point is exactly `cornerHz`.
struct CutSection {
    var b0: Float = 1, b1: Float = 0, b2: Float = 0, a1: Float = 0, a2: Float = 0
    var enabled = false
    /// The two TDF-II states, (s1, s2) per channel: lanes (left s1, right s1, left s2, right s2).
    var state = SIMD4<Float>.zero

    @_noLocks @inline(__always)
    mutating func set(highPass: Bool, cornerHz: Double, enabled: Bool, sampleRate fs: Double) {
        if !enabled && self.enabled { state = .zero }
        self.enabled = enabled
        guard enabled else { return }
        let k = RackMath.tan(RackMath.pi * min(cornerHz, 0.49 * fs) / fs)
        let root2 = 1.414_213_562_373_095_1
        let norm = 1 / (1 + root2 * k + k * k)
        if highPass {
            b0 = Float(norm)
            b1 = Float(-2 * norm)
            b2 = Float(norm)
        } else {
            b0 = Float(k * k * norm)
            b1 = Float(2 * k * k * norm)
            b2 = Float(k * k * norm)
        }
        a1 = Float(2 * (k * k - 1) * norm)
        a2 = Float((1 - root2 * k + k * k) * norm)
    }

    /// One frame (left, right).
    @_noLocks @inline(__always)
    mutating func process(_ x: SIMD2<Float>) -> SIMD2<Float> {
        let s1 = state.lowHalf, s2 = state.highHalf
        let y = b0 * x + s1
        state = SIMD4(lowHalf: b1 * x - a1 * y + s2, highHalf: b2 * x - a2 * y)
        return y
    }
}
