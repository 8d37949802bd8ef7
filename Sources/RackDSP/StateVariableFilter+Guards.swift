/// `StateVariableFilter`'s guards on its state: silent tails never go subnormal, and a state gone
/// non-finite (a NaN or ±Inf got in) is found at the end of the call and the filter starts afresh.
extension StateVariableFilter {
    /// Magnitudes below 1e-25 set to zero, so that silent tails never go subnormal.
    @_noLocks @inline(__always)
    static func flushed(_ x: SIMD2<Float>) -> SIMD2<Float> {
        x.replacing(with: 0, where: (x .< SIMD2(repeating: 1e-25)) .& (x .> SIMD2(repeating: -1e-25)))
    }

    /// A non-finite state would stay so for ever: clear and count it, silence this call's
    /// non-finite outputs. - Realtime: safe
    @_noLocks
    mutating func recover(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        reset()
        faultResets &+= 1
        for i in 0..<frames where !left[i].isFinite || !right[i].isFinite {
            (left[i], right[i]) = (left[i].isFinite ? left[i] : 0, right[i].isFinite ? right[i] : 0)
        }
    }

    /// True when either state holds a NaN or ±Inf (x − x is 0 for every finite x; NaN != 0 too).
    @_noLocks @inline(__always)
    static func isNonFinite(_ s1: SIMD2<Float>, _ s2: SIMD2<Float>) -> Bool {
        let probe = (s1 - s1) + (s2 - s2)
        return probe.x != 0 || probe.y != 0
    }
}
