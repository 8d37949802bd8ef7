/// Where a group's input lives: planar history rings (right = left + stride) and the index of
/// the group's first sample.
struct HistoryView {
    let base: UnsafeMutablePointer<Float>
    let stride: Int
    let mask: Int
    let write: Int

    /// The 8 samples of `channel` (0: L, 1: R) starting `delay` samples before the group.
    @_noLocks @inline(__always)
    func load(delay: Int, channel: Int) -> SIMD8<Float> {
        let p = base + (channel &* stride &+ ((write &- delay) & mask))
        return UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
}
