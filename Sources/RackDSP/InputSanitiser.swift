/// The first stage of the render pipeline: replaces input samples that are not audio before
/// they reach any kernel's state. A sample is replaced by 0 when it is NaN, ±Inf, or larger in
/// magnitude than `maximumMagnitude` (+60 dBFS). One such sample, fed to a recursive filter or
/// a reverb, would otherwise make every later output NaN (or, for a huge finite value, drown
/// the output for the length of the tail).
///
/// Why 0: the replaced sample is unknown; silence is the value that adds nothing to the state,
/// so the output is exactly the output for the same input with silence at that sample.
/// Why +60 dBFS: float streams legitimately exceed full scale (a hot mix bus, an
/// uncompressed float file), but nothing audio-like is 1000 times full scale; beyond that the
/// chain's worst gain (+20 dB resonance, +12 dB output gain) would stay far from Float's range
/// either way, and the meters stay meaningful.
public enum InputSanitiser {
    /// Largest magnitude let through, linear (1000 = +60 dBFS).
    /// - Realtime: safe
    public static var maximumMagnitude: Float { @inline(__always) @_noLocks get { 1000 } }

    /// Replaces every sample of `samples[0..<frames]` that is not finite or beyond
    /// `maximumMagnitude` by 0, in place; returns how many it replaced.
    /// - Realtime: safe
    @_noLocks
    public static func replaceNonAudio(_ samples: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let limit = maximumMagnitude
        var replaced = 0
        var i = 0
        // Eight samples at a time; NaN fails every comparison, ±Inf is beyond the limit.
        while frames - i >= 8 {
            let x = UnsafeRawPointer(samples + i).loadUnaligned(as: SIMD8<Float>.self)
            let ok = (x .<= limit) .& (x .>= -limit)
            if !all(ok) {
                UnsafeMutableRawPointer(samples + i).storeBytes(of: x.replacing(with: 0, where: .!ok),
                                                                as: SIMD8<Float>.self)
                for lane in 0..<8 where !ok[lane] { replaced &+= 1 }
            }
            i &+= 8
        }
        while i < frames {
            let x = samples[i]
            let ok = x.magnitude <= limit
            samples[i] = ok ? x : 0
            replaced &+= ok ? 0 : 1
            i &+= 1
        }
        return replaced
    }
}
