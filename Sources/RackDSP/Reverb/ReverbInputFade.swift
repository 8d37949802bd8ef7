/// The input side of `Reverb`'s room changes: every sounding slot's history gets the input
/// scaled by its input gain (the equal-power crossfade from the old room to the new), and the
/// gains of a tail that is cut short. Per sample and per 8-sample group, bit-identical.
extension Reverb {
    /// The input gains of the next 8 samples: (fading in, fading out); (1, 0) beyond each
    /// fade's end. x = (done + j + 1)/length for sample j of the group.
    @_noLocks @inline(__always)
    func fadeGains() -> (SIMD8<Float>, SIMD8<Float>) {
        let j = SIMD8<Float>(1, 2, 3, 4, 5, 6, 7, 8)
        let x = (Float(fadeDone) + j) * (1 / Float(fadeLength))
        let xOut = (Float(fadeDone) + j) * (1 / Float(fadeOutLength))
        return (Self.quarterSine(x).replacing(with: 1, where: j .> Float(fadeLength - fadeDone)),
                Self.quarterSine(1 - xOut).replacing(with: 0, where: j .> Float(fadeOutLength - fadeDone)))
    }

    /// Stores one input frame into every sounding slot's history, scaled by its input gain
    /// (flushing magnitudes below `inputFlush` to 0, so no subnormal input reaches the taps),
    /// and advances the write index. Lane 0 of `fadeGains`, so that it matches `pushGroup`
    /// bit for bit.
    @_noLocks @inline(__always)
    mutating func pushInput(_ l: Float, _ r: Float, _ slots: UnsafeMutablePointer<ReverbSlot>) {
        var cl: Float = abs(l) < inputFlush ? 0 : l
        var cr: Float = abs(r) < inputFlush ? 0 : r
        if feedMoving {
            let feed = feedGains()[0]
            cl *= feed
            cr *= feed
            advanceFeed(by: 1)
        }
        let fading = fadeLength > 0
        var gIn: Float = 1, gOut: Float = 0
        if fading {
            let (a, b) = fadeGains()
            gIn = a[0]
            gOut = b[0]
        }
        let i = historyWrite
        let stride = historyLength + 8
        for s in 0..<slotCount {
            let v: (Float, Float)
            switch slots[s].phase {
            case .live: v = fading ? (gIn * cl, gIn * cr) : (cl, cr)
            case .spilling, .cutting: v = fading && fadingOut.isSlot(s) ? (gOut * cl, gOut * cr) : (0, 0)
            case .clean, .clearing: continue
            }
            guard let history = slots[s].history else { continue }
            history[i] = v.0
            history[stride + i] = v.1
            if i < 8 {
                history[historyLength + i] = v.0
                history[stride + historyLength + i] = v.1
            }
        }
        historyWrite = (i + 1) & (historyLength - 1)
        if fading { advanceFade(by: 1) }
    }

    /// `pushInput` for a whole group (the write index is a multiple of 8).
    @_noLocks @inline(__always)
    mutating func pushGroup(_ l: SIMD8<Float>, _ r: SIMD8<Float>, _ slots: UnsafeMutablePointer<ReverbSlot>) {
        let i = historyWrite
        let stride = historyLength &+ 8
        let t = inputFlush
        var cl = l.replacing(with: 0, where: (l .< t) .& (l .> -t))
        var cr = r.replacing(with: 0, where: (r .< t) .& (r .> -t))
        if feedMoving {
            let feed = feedGains()
            cl *= feed
            cr *= feed
            advanceFeed(by: 8)
        }
        let fading = fadeLength > 0
        var gIn = SIMD8<Float>(repeating: 1), gOut = SIMD8<Float>.zero
        if fading { (gIn, gOut) = fadeGains() }
        for s in 0..<slotCount {
            let vl: SIMD8<Float>, vr: SIMD8<Float>
            switch slots[s].phase {
            case .live:
                (vl, vr) = fading ? (gIn * cl, gIn * cr) : (cl, cr)
            case .spilling, .cutting:
                (vl, vr) = fading && fadingOut.isSlot(s) ? (gOut * cl, gOut * cr) : (.zero, .zero)
            case .clean, .clearing: continue
            }
            guard let history = slots[s].history else { continue }
            ReverbCore.store(vl, history + i)
            ReverbCore.store(vr, history + (stride &+ i))
            if i == 0 {
                ReverbCore.store(vl, history + historyLength)
                ReverbCore.store(vr, history + (stride &+ historyLength))
            }
        }
        historyWrite = (i &+ 8) & (historyLength &- 1)
        if fading { advanceFade(by: 8) }
    }

    /// False while the input is fed whole (no `freeze` fade running, not frozen).
    var feedMoving: Bool {
        @_noLocks @inline(__always) get { feedStopping || feedPosition < feedFrames }
    }

    /// The feed's gains for the next 8 samples: sin(π/2·x), x = position/`feedFrames`, moving
    /// one sample per lane towards 0 (`freeze`) or 1, held at the end.
    @_noLocks @inline(__always)
    func feedGains() -> SIMD8<Float> {
        let j = SIMD8<Float>(1, 2, 3, 4, 5, 6, 7, 8)
        let step = feedStopping ? -j : j
        let position = (Float(feedPosition) + step).clamped(lowerBound: SIMD8(repeating: 0),
                                                            upperBound: SIMD8(repeating: Float(feedFrames)))
        return Self.quarterSine(position * (1 / Float(feedFrames)))
    }

    @_noLocks @inline(__always)
    mutating func advanceFeed(by n: Int) {
        feedPosition = feedStopping ? max(0, feedPosition &- n) : min(feedFrames, feedPosition &+ n)
    }

    /// Moves the running crossfade on; at its end the old slot keeps only its tail.
    @_noLocks @inline(__always)
    mutating func advanceFade(by n: Int) {
        fadeDone += n
        if fadeDone >= fadeLength {
            fadeLength = 0
            fadeDone = 0
            fadingOut = .none
        }
    }

    /// Output gains of a cut for the group starting `done` samples into it: cos(π/2·x).
    @_noLocks @inline(__always)
    func cutGains(_ done: Int) -> SIMD8<Float> {
        let j = SIMD8<Float>(1, 2, 3, 4, 5, 6, 7, 8)
        let x = (Float(done) + j) * (1 / Float(cutFrames))
        return Self.quarterSine(1 - x).replacing(with: 0, where: x .>= 1)
    }

    /// sin(π/2·x) for x in [0, 1], odd Taylor polynomial to θ¹¹ (|error| < 6e-8, float
    /// resolution; exactly 0 at 0).
    @_noLocks @inline(__always)
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
