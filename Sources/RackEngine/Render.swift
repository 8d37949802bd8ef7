import RackDSP

/// The outcome of one render call, as AVAudioEngine's manual rendering reports it.
public enum RenderStatus: Sendable, Equatable {
    /// Every frame was rendered.
    case success
    /// The input node had nothing to give (rendered as silence); every other source was rendered.
    case insufficientDataFromInputNode
    /// Nothing was rendered: the request itself was wrong (more frames than the engine's maximum).
    case error
}

/// The one render function: every driver (JACK's process callback, the offline renderer)
/// calls this. Renders `frames` frames of the graph
/// (player + input → low-pass → reverb wet/dry → gain, crossfaded with the input by bypass) into `outputLeft/Right`, applying every
/// event at its sample. Inputs may be nil (silence; reported as insufficient input).
///
/// The pipeline: drain the control thread's commands and the events the render thread's
/// stages submitted → split the block into control segments
/// (at ticks, ramp ends and events) → per segment: due events, the kernels' settings at its
/// start and end (one loop over the parameter rows' bindings), player, the sanitiser (input
/// that is not audio becomes 0 before any state sees it), the input kept for bypass, low-pass,
/// the dry path faded by bypass, the segment's reverb shape, mix, gain and bypass → reverb over
/// the whole block (split where the room or the shape changes) → wet/dry, gain and bypass with
/// the meters → publish the counters.
///
/// Block-size invariance: parameters are evaluated at control segments bounded by absolute
/// ticks (every `controlPeriod` samples), event times and ramp ends, never by the block edges,
/// so any split of the same timeline into calls gives the same samples.
///
/// - Realtime: safe (no allocation, no locks, no I/O; checked by the compiler).
@_noLocks
public func rackRender(_ core: UnsafeMutablePointer<EngineCore>, frames: Int,
                       inputLeft: UnsafePointer<Float>?, inputRight: UnsafePointer<Float>?,
                       outputLeft: UnsafeMutablePointer<Float>, outputRight: UnsafeMutablePointer<Float>) -> RenderStatus {
    guard frames >= 0 && frames <= core.pointee.maxFrames else { return .error }
    if frames == 0 { return .success }

    core.pointee.drain()
    let status = core.pointee.loadInput(left: inputLeft, right: inputRight, frames: frames)

    let start = core.pointee.sampleTime
    let end = start + Int64(frames)
    var t = start
    var roomChangeCount = 0
    while t < end {
        let offset = Int(t - start)
        let due = core.pointee.applyDueEvents(at: t, offset: offset, roomChangeCount: &roomChangeCount)
        let stretch = core.pointee.controlSegment(at: t, eventsApplied: due, blockEnd: end)
        let settings = core.pointee.segmentSettings(stretch)
        core.pointee.renderPlayer(stretch, offset: offset)
        core.pointee.sanitiseDrySum(stretch, offset: offset)
        core.pointee.keepInputForBypass(stretch, offset: offset, settings)
        core.pointee.renderDryKernels(stretch, offset: offset, settings)
        core.pointee.fadeDryForBypass(stretch, offset: offset, settings)
        core.pointee.scheduleShape(stretch, offset: offset, settings)
        core.pointee.scheduleMix(stretch, offset: offset, settings)
        t = stretch.stop
    }

    core.pointee.renderReverb(frames: frames, roomChangeCount: roomChangeCount)
    core.pointee.renderMix(outputLeft: outputLeft, outputRight: outputRight, frames: frames)
    core.pointee.sampleTime = end
    core.pointee.publishCounters()
    return status
}

/// The part of a control segment that one step of `rackRender` renders: samples
/// [from, stop) of the segment [start, end).
struct SegmentStretch {
    /// The control segment; `end` is `Int64.max` for a steady segment that runs to the next
    /// event.
    var start: Int64, end: Int64
    /// The stretch: its first sample and one past its last (at most the end of the block).
    var from: Int64, stop: Int64

    /// - Realtime: safe
    var frames: Int { @_noLocks get { Int(stop - from) } }
    /// Offset of `from` inside the control segment.
    /// - Realtime: safe
    var offsetInSegment: Int { @_noLocks get { Int(from - start) } }
    /// Length to interpolate over. A steady segment may be open-ended: interpolate over its
    /// part in this block (the values are constant, so the length does not matter).
    /// - Realtime: safe
    var length: Int { @_noLocks get { end == Int64.max ? Int(stop - start) : Int(end - start) } }
    /// Sample at which the segment's end values are taken.
    /// - Realtime: safe
    var endSample: Int64 { @_noLocks get { end == Int64.max ? start : end } }
}

/// A control segment's kernel settings: at its start and at its end (`SegmentStretch.endSample`).
struct SegmentSettings {
    var from: KernelSettings, to: KernelSettings
}

/// The stages of `rackRender`, in pipeline order.
extension EngineCore {
    /// The kernels' settings at the stretch's segment start and end.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func segmentSettings(_ stretch: SegmentStretch) -> SegmentSettings {
        SegmentSettings(from: kernelSettings(at: stretch.start), to: kernelSettings(at: stretch.endSample))
    }

    /// Copies the input into the dry sum (silence when there is none).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func loadInput(left: UnsafePointer<Float>?, right: UnsafePointer<Float>?, frames: Int) -> RenderStatus {
        let sumL = sumLeft, sumR = sumRight
        if let left, let right {
            for i in 0..<frames {
                sumL[i] = left[i]
                sumR[i] = right[i]
            }
            return .success
        }
        for i in 0..<frames {
            sumL[i] = 0
            sumR[i] = 0
        }
        return .insufficientDataFromInputNode
    }

    /// The control segment holding `t`: a new one starts at a boundary or after an event.
    /// While a ramp moves, segments end at control ticks and ramp ends; when nothing moves
    /// the values are constant, a segment runs to the next event, and splitting it anywhere
    /// would give the same samples (constant interpolation is exact).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func controlSegment(at t: Int64, eventsApplied due: Int, blockEnd: Int64) -> SegmentStretch {
        if due > 0 || t >= segmentEnd || t < segmentStart {
            var e = Int64.max
            for p in 0..<rampCount {
                let rampEnd = ramps[p].endSample
                if rampEnd > t {
                    e = min(min(e, rampEnd), (t / controlPeriod + 1) * controlPeriod)
                }
            }
            segmentStart = t
            segmentEnd = e
        }
        if let next = nextScheduledTime, next > t && next < segmentEnd { segmentEnd = next }
        return SegmentStretch(start: segmentStart, end: segmentEnd, from: t, stop: min(segmentEnd, blockEnd))
    }

    /// The player adds its file into the dry sum. A ring it let go of goes back to the
    /// control thread, which frees it.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func renderPlayer(_ stretch: SegmentStretch, offset: Int) {
        player.process(Player.Block(
            output: StereoBuffers(left: sumLeft + offset, right: sumRight + offset, frames: stretch.frames),
            scratch: StereoBuffers(left: scratchLeft, right: scratchRight, frames: stretch.frames)))
        if !notices.cursor.isFull, let r = player.takeReleased() {
            _ = notices.push(.releasedRing(r))
        }
    }

    /// The dry sum (live input + player) loses every sample that is not audio (NaN, ±Inf, or
    /// beyond `InputSanitiser.maximumMagnitude`): each becomes 0 before the filter, the reverb
    /// or the meters see it, and is counted (`replacedInputSamples`, per channel sample).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func sanitiseDrySum(_ stretch: SegmentStretch, offset: Int) {
        let replaced = InputSanitiser.replaceNonAudio(sumLeft + offset, frames: stretch.frames)
            &+ InputSanitiser.replaceNonAudio(sumRight + offset, frames: stretch.frames)
        if replaced > 0 { monitor.add(.replacedInputSamples, replaced) }
    }

    /// The dry kernels (the low-pass) filter the dry sum in place, their settings interpolated
    /// across the control segment.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func renderDryKernels(_ stretch: SegmentStretch, offset: Int, _ settings: SegmentSettings) {
        dry.process(StereoBuffers(left: sumLeft + offset, right: sumRight + offset, frames: stretch.frames),
                    from: settings.from, to: settings.to, offset: stretch.offsetInSegment, length: stretch.length)
    }

    /// The bypass share (0…1) at the stretch's segment start and end.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func bypassShare(_ settings: SegmentSettings) -> (from: Float, to: Float) {
        (Float(settings.from.bypassShare), Float(settings.to.bypassShare))
    }

    /// Where bypass is not 0, the dry sum (live input + player, sanitised) is kept as the
    /// rack's unprocessed input before the filter changes it.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func keepInputForBypass(_ stretch: SegmentStretch, offset: Int, _ settings: SegmentSettings) {
        let share = bypassShare(settings)
        guard share.from != 0 || share.to != 0 else { return }
        for i in offset..<(offset + stretch.frames) {
            inputLeft[i] = sumLeft[i]
            inputRight[i] = sumRight[i]
        }
    }

    /// Where bypass is not 0, the filtered dry path (which feeds the reverb and the mix) fades
    /// by 1 − bypass: the reverb stops being fed while its tail rings out (spill-over), and
    /// the mix stage adds the input by bypass.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func fadeDryForBypass(_ stretch: SegmentStretch, offset: Int, _ settings: SegmentSettings) {
        let share = bypassShare(settings)
        guard share.from != 0 || share.to != 0 else { return }
        let step = (share.to - share.from) / Float(stretch.length)
        let left = sumLeft, right = sumRight     // plain pointers first: see `change(_:to:…)`
        for i in 0..<stretch.frames {
            let keep = 1 - (share.from + step * Float(stretch.offsetInSegment + i))
            left[offset + i] *= keep
            right[offset + i] *= keep
        }
    }

    /// Lists the segment's reverb shape (the shaping controls at its start, moving to their
    /// values at its end) for the reverb stage when it differs from the shape the reverb has.
    /// Until one is listed the reverb runs each room at its own values, so a shape equal to
    /// the room's at both ends is not listed then.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func scheduleShape(_ stretch: SegmentStretch, offset: Int, _ settings: SegmentSettings) {
        let shape = settings.from.shape, target = settings.to.shape
        if hasSentShape {
            if ReverbControls.same(shapeSent, shape) { return }
        } else if ReverbControls.isOwn(shape, roomShapes[room.rawValue])
                    && ReverbControls.isOwn(target, roomShapes[room.rawValue]) {
            return
        }
        shapeSent = shape
        hasSentShape = true
        // Collapse shapes at the same offset into the last one.
        if !(shapeChangeCount > 0 && shapeChanges[shapeChangeCount - 1].offset == offset) { shapeChangeCount += 1 }
        shapeChanges[shapeChangeCount - 1].offset = offset
        shapeChanges[shapeChangeCount - 1].shape = shape
        shapeChanges[shapeChangeCount - 1].target = target
        shapeChanges[shapeChangeCount - 1].frames = Int(stretch.endSample - stretch.from)
    }

    /// Lists the stretch's wet share, gain (dB → linear) and bypass share
    /// for the mix stage, which runs after the reverb.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func scheduleMix(_ stretch: SegmentStretch, offset: Int, _ settings: SegmentSettings) {
        let gainFrom = mixer.linearGain(decibels: settings.from.outputGainDecibels)
        let gainTo = mixer.linearGain(decibels: settings.to.outputGainDecibels)
        let share = bypassShare(settings)
        mixer.append(WetDryGain.Segment(
            start: offset, end: offset + stretch.frames, offset: stretch.offsetInSegment, length: stretch.length,
            mixFrom: Float(settings.from.wetShare), mixTo: Float(settings.to.wetShare),
            gainFrom: gainFrom, gainTo: gainTo, bypassFrom: share.from, bypassTo: share.to))
    }

    /// The reverb runs over the whole block, split only where the room or the shape changes
    /// (at one offset the room first: the new room takes the shape).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func renderReverb(frames: Int, roomChangeCount: Int) {
        var done = 0, room = 0, shape = 0
        while room < roomChangeCount || shape < shapeChangeCount {
            let roomFirst = shape >= shapeChangeCount
                || (room < roomChangeCount && roomChanges[room].offset <= shapeChanges[shape].offset)
            let offset = roomFirst ? roomChanges[room].offset : shapeChanges[shape].offset
            if offset > done {
                runReverb(from: done, frames: offset - done)
                done = offset
            }
            if roomFirst {
                reverb.setRoom(roomChanges[room].room, crossfadeFrames: roomChanges[room].crossfadeFrames)
                room += 1
            } else {
                let change = shapeChanges[shape]
                reverb.setShape(change.shape, gliding: change.target, frames: change.frames)
                shape += 1
            }
        }
        shapeChangeCount = 0
        if frames > done { runReverb(from: done, frames: frames - done) }
    }

    /// The reverb from the dry sum into the wet buffers, frames [from, from + frames).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func runReverb(from offset: Int, frames: Int) {
        reverb.process(inputLeft: sumLeft + offset, inputRight: sumRight + offset,
                       outputLeft: wetLeft + offset, outputRight: wetRight + offset, frames: frames)
    }

    /// Wet/dry and output gain over the listed segments into the outputs, metered in the same
    /// pass (a new peak window first when the control thread asked for one).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func renderMix(outputLeft: UnsafeMutablePointer<Float>, outputRight: UnsafeMutablePointer<Float>, frames: Int) {
        if monitor.read(.peakReset) != 0 {
            monitor.set(.peakReset, 0)
            mixer.resetPeaks()
        }
        mixer.process(WetDryGain.Block(dry: StereoBuffers(left: sumLeft, right: sumRight, frames: frames),
                                       wet: StereoBuffers(left: wetLeft, right: wetRight, frames: frames),
                                       input: StereoBuffers(left: inputLeft, right: inputRight, frames: frames),
                                       output: StereoBuffers(left: outputLeft, right: outputRight, frames: frames)))
    }

    /// Publishes the meters, the transport and the counters for the control thread.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func publishCounters() {
        let meter = mixer.meter
        monitor.set(.peakLeft, Int(meter.peakLeft.bitPattern))
        monitor.set(.peakRight, Int(meter.peakRight.bitPattern))
        monitor.set(.sumSquaresLeft, Int(Int64(bitPattern: meter.sumSquaresLeft.bitPattern)))
        monitor.set(.sumSquaresRight, Int(Int64(bitPattern: meter.sumSquaresRight.bitPattern)))
        monitor.set(.meteredFrames, meter.frames)
        monitor.set(.ramping, isRamping ? 1 : 0)
        monitor.set(.sampleTime, Int(sampleTime))
        monitor.set(.playerFrames, Int(player.framesPlayed))
        monitor.set(.playerUnderruns, player.underrunFrames)
        monitor.set(.playing, player.isPlaying ? 1 : 0)
        monitor.set(.droppedEvents, droppedEvents)
    }
}
