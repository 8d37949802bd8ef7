/// The steady path of `Reverb.process`: while one network sounds alone and nothing moves (no
/// room change running or waiting, no `freeze` fade, no pre-delay crossfade, no bridging tail,
/// no shape waiting to be taken), a group needs none of `renderGroup`'s housekeeping nor
/// `pushGroup`'s per-slot input gains: the heard network renders, the wet stage shapes (only
/// when a cut runs or the width is not 1), the input goes into its history. That is the whole
/// of a plain render and most of any other.
///
/// The same arithmetic in the same order as the general path, so the output is bit-identical
/// to it: the group's output is the sum of the sounding networks started from +0 (so a −0
/// output becomes +0 in both), a network that goes non-finite recovers the same way, and the
/// input is flushed below `inputFlush` the same way (`ReverbSteadyPathTests` compares the two).
extension Reverb {
    /// True when the next group is steady (see above): then `live` is the only sounding slot.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func isSteady(_ slots: UnsafeMutablePointer<ReverbSlot>) -> Bool {
        if case .some = pendingRoom { return false }
        if case .some = shape, shapeChanged { return false }
        if case .some = glide { return false }
        guard fadeLength == 0, !feedMoving, predelay.isSteady else { return false }
        guard slots[live].isIn(.live), slots[live].holdGroups == 0, slots[live].history != nil else { return false }
        for s in 0..<slotCount where s != live && !slots[s].isIn(.clean) { return false }
        return true
    }

    /// Renders every whole group of `inputs` from frame `k` on (the caller checked `isSteady`;
    /// nothing here can make the reverb unsteady) and returns the frame after the last one.
    /// The shape, if any, goes into the heard network first, as `applyShape` would at each
    /// group (it changes nothing after the first).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func processSteadyGroups(_ inputs: (left: UnsafePointer<Float>, right: UnsafePointer<Float>),
                                      _ outputs: (left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>),
                                      from start: Int, frames: Int, _ slots: UnsafeMutablePointer<ReverbSlot>) -> Int {
        let s = live
        guard let history = slots[s].history else { return start }
        if let shape { applyShape(shape, slots) }
        predelay.sounding = true
        let reads = PredelayReads(delay: predelay.current)
        let stride = historyLength &+ 8, mask = historyLength &- 1, end = historyLength
        let flush = inputFlush
        // The wet stage at rest (no cut running, width 1) leaves the signal as it is: skipped.
        let shaping = wetStage.isShaping
        wetStage.fresh = false
        var k = start
        while frames &- k >= 8 {
            let write = historyWrite
            let view = HistoryView(base: history, stride: stride, mask: mask, write: write, reads: reads)
            let (l, r) = slots[s].core.render(view)
            slots[s].touched = true
            var left = SIMD8<Float>.zero, right = SIMD8<Float>.zero
            let probe = (l - l) + (r - r)           // 0 unless a lane is NaN or ±Inf
            if any(probe .!= SIMD8<Float>.zero) {
                recover(s, slots)
            } else {
                left += l
                right += r
            }
            if shaping { wetStage.process(&left, &right) }
            let x = UnsafeRawPointer(inputs.left + k).loadUnaligned(as: SIMD8<Float>.self)
            let y = UnsafeRawPointer(inputs.right + k).loadUnaligned(as: SIMD8<Float>.self)
            let heldLeft = x.replacing(with: 0, where: (x .< flush) .& (x .> -flush))
            let heldRight = y.replacing(with: 0, where: (y .< flush) .& (y .> -flush))
            ReverbCore.store(heldLeft, history + write)
            ReverbCore.store(heldRight, history + (stride &+ write))
            if write == 0 {
                ReverbCore.store(heldLeft, history + end)
                ReverbCore.store(heldRight, history + (stride &+ end))
            }
            historyWrite = (write &+ 8) & mask
            UnsafeMutableRawPointer(outputs.left + k).storeBytes(of: left, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(outputs.right + k).storeBytes(of: right, as: SIMD8<Float>.self)
            k &+= 8
        }
        return k
    }
}
