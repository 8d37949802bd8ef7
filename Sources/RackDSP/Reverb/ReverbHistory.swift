/// Where a group's input lives: planar history rings (right = left + stride), the index of the
/// group's first sample, and the pre-delay's reads (`ReverbPredelay`): every load reaches back
/// a further `reads.delay` samples, and during a pre-delay crossfade it mixes that read with
/// the one at `reads.fadingDelay`, sample by sample.
struct HistoryView {
    let base: UnsafeMutablePointer<Float>
    let stride: Int
    let mask: Int
    let write: Int
    let reads: PredelayReads

    @_noLocks @inline(__always)
    init(base: UnsafeMutablePointer<Float>, stride: Int, mask: Int, write: Int,
         reads: PredelayReads = PredelayReads(delay: 0)) {
        (self.base, self.stride, self.mask, self.write, self.reads) = (base, stride, mask, write, reads)
    }

    /// The 8 samples of `channel` (0: L, 1: R) starting `delay` samples (plus the pre-delay)
    /// before the group.
    @_noLocks @inline(__always)
    func load(delay: Int, channel: Int) -> SIMD8<Float> {
        let heard = loadRaw(delay &+ reads.delay, channel: channel)
        guard reads.fading else { return heard }
        return reads.gain * heard + reads.fadingGain * loadRaw(delay &+ reads.fadingDelay, channel: channel)
    }

    @_noLocks @inline(__always)
    func loadRaw(_ delay: Int, channel: Int) -> SIMD8<Float> {
        let p = base + (channel &* stride &+ ((write &- delay) & mask))
        return UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
}
