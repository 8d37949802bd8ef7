/// The audio side of `Reverb`: `process` hands out the 8-sample groups' output sample by sample
/// (so the call sizes never change the result), and `renderGroup` sums every sounding slot's
/// network for a group after the slots' housekeeping and the shaping controls.
extension Reverb {
    /// 100 % wet stereo output for `frames` input samples (`frames ≤ maxFrames`). Input and
    /// output may NOT alias. Splitting a block into several calls of any sizes gives
    /// bit-identical output. Unprepared: writes silence.
    /// - Realtime: safe
    @_noLocks public mutating func process(
        inputLeft: UnsafePointer<Float>, inputRight: UnsafePointer<Float>,
        outputLeft: UnsafeMutablePointer<Float>, outputRight: UnsafeMutablePointer<Float>,
        frames: Int
    ) {
        guard frames > 0 else { return }
        guard let slots else {
            outputLeft.update(repeating: 0, count: frames)
            outputRight.update(repeating: 0, count: frames)
            return
        }
        var k = 0
        // Finish a group begun in an earlier call.
        while phase != 0 && k < frames {
            pushInput(inputLeft[k], inputRight[k], slots)
            outputLeft[k] = groupLeft[phase]
            outputRight[k] = groupRight[phase]
            phase = (phase + 1) & 7
            k += 1
        }
        // Whole groups, straight to the output (while steady, without the housekeeping).
        while frames - k >= 8 {
            if isSteady(slots) {
                k = processSteadyGroups((inputLeft, inputRight), (outputLeft, outputRight), from: k, frames: frames, slots)
                continue
            }
            let (l, r) = renderGroup(slots)
            pushGroup(UnsafeRawPointer(inputLeft + k).loadUnaligned(as: SIMD8<Float>.self),
                      UnsafeRawPointer(inputRight + k).loadUnaligned(as: SIMD8<Float>.self), slots)
            UnsafeMutableRawPointer(outputLeft + k).storeBytes(of: l, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(outputRight + k).storeBytes(of: r, as: SIMD8<Float>.self)
            k &+= 8
        }
        // Start a group that this call only partly covers.
        if k < frames {
            (groupLeft, groupRight) = renderGroup(slots)
            while k < frames {
                pushInput(inputLeft[k], inputRight[k], slots)
                outputLeft[k] = groupLeft[phase]
                outputRight[k] = groupRight[phase]
                phase += 1
                k += 1
            }
        }
    }

    /// The output of the group starting at the history write index (a multiple of 8): the sum
    /// of every sounding slot. Reads only history older than the group. First the slots'
    /// housekeeping: a queued room change starts when it can, clearing slots take one step.
    @inline(__always)
    mutating func renderGroup(_ slots: UnsafeMutablePointer<ReverbSlot>) -> (SIMD8<Float>, SIMD8<Float>) {
        if let next = pendingRoom, fadeLength == 0 {
            if next.index == slots[live].core.room.index || startChange(to: next, short: startsShort(next), frames: pendingFrames, slots) {
                pendingRoom = nil
            }
        }
        if case .some = glide {
            glideShape(slots)
        } else if let shape {
            applyShape(shape, slots)
        }
        let reads = predelay.step()
        var left = SIMD8<Float>.zero, right = SIMD8<Float>.zero
        for s in 0..<slotCount {
            switch slots[s].phase {
            case .clean: continue
            case .clearing:
                clearStep(s, slots)
                continue
            case .live, .spilling, .cutting:
                break
            }
            guard let history = slots[s].history else { continue }
            let h = HistoryView(base: history, stride: historyLength + 8, mask: historyLength - 1,
                                write: historyWrite, reads: reads)
            var (l, r) = slots[s].core.render(h)
            slots[s].touched = true
            let probe = (l - l) + (r - r)           // 0 unless a lane is NaN or ±Inf
            if any(probe .!= SIMD8<Float>.zero) {
                recover(s, slots)
                continue
            }
            if slots[s].holdGroups > 0 { holdStep(s, slots) }
            if slots[s].isIn(.cutting) {
                let g = cutGains(slots[s].cutDone)
                l *= g
                r *= g
                slots[s].cutDone += 8
                if slots[s].cutDone >= cutFrames { startClearing(s, slots) }
            } else if slots[s].isIn(.spilling) && !fadingOut.isSlot(s) {
                let loud = any(pointwiseMax(l * l, r * r) .>= silenceLevel * silenceLevel)
                slots[s].quietGroups = loud ? 0 : slots[s].quietGroups + 1
                if slots[s].quietGroups >= quietGroupsToEnd { startClearing(s, slots) }
            }
            left += l
            right += r
        }
        wetStage.process(&left, &right)
        return (left, right)
    }

    /// One group of the running glide (`ReverbShapeGlide`): the networks' absorption and the
    /// cuts' coefficients reach the line's value at the group's end, moving sample by sample
    /// from where they are (a network that takes other coefficients or starts meanwhile, or a
    /// cut switching on, has nothing to glide from); the width takes each sample's.
    @_noLocks @inline(__always)
    mutating func glideShape(_ slots: UnsafeMutablePointer<ReverbSlot>) {
        guard var g = glide else { return }
        for s in 0..<slotCount where slots[s].isIn(.live) || slots[s].isIn(.spilling) {
            slots[s].core.absorptionFrom = ReverbAbsorptionGlide(slots[s].core.coefficients)
        }
        let next = g.shape(at: g.done &+ 8)
        shape = next
        wetStage.set(next, sampleRate: sampleRate, gliding: true)
        applyShape(next, slots)
        wetStage.width = g.widths()
        g.done &+= 8
        glide = g.isDone ? nil : g
    }

    /// The shape into the heard network's absorption (a no-op when it has it) and, after a
    /// `setShape`, into the wet stage, the pre-delay and the feed. While a room waits its turn
    /// (`pendingRoom`) the shape is that room's (the control side sends a room's values with
    /// it): the heard network, which will fade out when the waiting room starts, keeps its
    /// absorption, and the waiting room's network takes the shape at its first group. (The
    /// wet stage, the pre-delay and the feed act on every network at once: they follow at once.)
    @_noLocks @inline(__always)
    mutating func applyShape(_ shape: ReverbShape, _ slots: UnsafeMutablePointer<ReverbSlot>) {
        if case .none = pendingRoom {
            followDecay(shape, slots)
            slots[live].core.coefficients.shape(decaySeconds: shape.decaySeconds, dampingHz: shape.dampingHz,
                                                frozen: shape.freeze)
            shapeFormTails(shape, slots)
        }
        guard shapeChanged else { return }
        shapeChanged = false
        wetStage.set(shape, sampleRate: sampleRate)
        predelay.set(seconds: shape.predelaySeconds, sampleRate: sampleRate)
        feedStopping = shape.freeze
    }
}
