import RackDSP

/// Constants of the engine's scheduling, in seconds, scaled by the sample rate at prepare.
public enum EngineTuning {
    /// Control period: coefficients are computed at control ticks on absolute sample positions
    /// every this many seconds (32 frames at 48 kHz) and interpolated linearly between them.
    public static let controlPeriodSeconds = 32.0 / 48_000
    /// Slots of the applied-events queue beyond the events that can be in flight: the rings the
    /// player lets go of and the few events one message posts (a preset recall: one per
    /// parameter and its marker; a room change: the room and the controls that follow it).
    static let echoMargin = 64
}

/// A room change at an offset in the block.
struct RoomChange {
    var offset: Int
    var room: Room
    var crossfadeFrames: Int
}

/// The reverb's shaping controls from an offset in the block on.
struct ShapeChange {
    var offset: Int
    var shape: ReverbShape
}

/// Everything the render thread touches: plain values and buffers allocated in `init`, no
/// class references. Owned by `Engine`, which allocates it and frees it. `rackRender`
/// (Render.swift) runs it.
public struct EngineCore {
    public let sampleRate: Double
    public let maxFrames: Int
    let controlPeriod: Int64
    /// Absolute sample position of the next frame to render.
    public internal(set) var sampleTime: Int64 = 0

    /// One ramp per continuous parameter, in the order of `Parameters.continuous`.
    var ramps: UnsafeMutablePointer<Ramp>
    /// How many ramps there are.
    let rampCount: Int
    /// The parameter of each ramp, in the order of `ramps`.
    let rampParameters: UnsafeMutablePointer<ParameterID>
    /// The index in `ramps` of each parameter, indexed by `ParameterID.index`; nil for a
    /// choice (`room`), which has no ramp.
    let rampIndices: UnsafeMutablePointer<Int?>
    /// Every parameter's default and longest ramp in frames, indexed by `ParameterID.index`.
    var rampLimits: UnsafeMutablePointer<RampLimits>
    public internal(set) var room: Room
    var filter = LowPass(maximumCutoffHz: Parameters[.cutoff].maximum)
    var reverb = Reverb()
    var player = Player()
    var mixer = WetDryGain()

    /// The current control segment [segmentStart, segmentEnd).
    var segmentStart: Int64 = 0
    var segmentEnd: Int64 = 0

    let queue: EventQueue
    /// Render → control: every event as applied (with the sample it took effect at) and the
    /// rings the player let go of.
    let applied: EventQueue
    /// Counters the control thread reads while the render thread runs.
    let monitor: EngineMonitor
    /// Events drained from `queue`: immediate ones first, in arrival order, then scheduled
    /// ones in (sample time, arrival) order (`EventSchedule`).
    var pending: EventSchedule

    /// Events dropped because a pending list was full (0 unless the control side broke its
    /// bound; published as `EngineMonitor.Counter.droppedEvents`).
    /// - Realtime: safe
    public var droppedEvents: Int { @_noLocks get { pending.droppedEvents } }

    /// The block's dry sum (input + player, filtered in place), the reverb's output, and the
    /// player's scratch space: `maxFrames` frames each.
    var sumLeft, sumRight, wetLeft, wetRight, scratchLeft, scratchRight: UnsafeMutablePointer<Float>
    var roomChanges: UnsafeMutablePointer<RoomChange>
    /// The shapes the reverb stage sets in the current block, in offset order.
    var shapeChanges: UnsafeMutablePointer<ShapeChange>
    var shapeChangeCount = 0
    /// The shape last listed for the reverb, once `hasSentShape`; until then the reverb has
    /// never been given one (every room at its own values, as designed: renders that move no
    /// shaping control are those of a reverb without them).
    var shapeSent: ReverbShape
    var hasSentShape = false
    /// The ramps of the controls that follow the room (`ReverbControls.followingRoom`), and
    /// the sample of the last room change: a change of one of them at the sample of a room
    /// change takes effect at once (the new room's network starts with it; the room's
    /// crossfade is its crossfade, and the old room's tail keeps its own values).
    let followingRoomRamps: UnsafeMutablePointer<Int>
    let followingRoomCount: Int
    var roomChangedAt = Int64.min
    /// Each room's own values (`Room.shape`), by `Room.index`.
    let roomShapes: UnsafeMutablePointer<ReverbShape>
    /// The block's unprocessed input (the dry sum before the filter), kept where `bypass` is
    /// not 0: `maxFrames` frames each.
    var inputLeft, inputRight: UnsafeMutablePointer<Float>

    /// Sets everything up for `sampleRate` and at most `maxFrames` per render call, starting
    /// at `state` (values in parameter units, room as an index). Allocates; not realtime.
    init(sampleRate: Double, maxFrames: Int, state: RackState, queue: EventQueue, applied: EventQueue,
         monitor: EngineMonitor, pendingCapacity: Int) {
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames
        controlPeriod = max(1, Int64((EngineTuning.controlPeriodSeconds * sampleRate).rounded()))
        self.queue = queue
        self.applied = applied
        self.monitor = monitor
        pending = EventSchedule(scheduledCapacity: pendingCapacity, immediateCapacity: 2 * queue.capacity)
        rampCount = Parameters.continuous.count
        ramps = .allocate(capacity: rampCount)
        rampParameters = .allocate(capacity: rampCount)
        rampIndices = .allocate(capacity: Parameters.all.count)
        rampIndices.initialize(repeating: nil, count: Parameters.all.count)
        for (r, spec) in Parameters.continuous.enumerated() {
            (ramps + r).initialize(to: Ramp(value: state[spec.id], shape: spec.rampShape))
            (rampParameters + r).initialize(to: spec.id)
            rampIndices[spec.id.index] = r
        }
        followingRoomCount = ReverbControls.followingRoom.count
        followingRoomRamps = .allocate(capacity: followingRoomCount)
        for (k, id) in ReverbControls.followingRoom.enumerated() { (followingRoomRamps + k).initialize(to: rampIndices[id.index]!) }
        rampLimits = .allocate(capacity: Parameters.all.count)
        for spec in Parameters.all {
            (rampLimits + spec.id.index).initialize(to: spec.rampLimits(sampleRate: sampleRate))
        }
        room = state.room
        func buffer() -> UnsafeMutablePointer<Float> {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: maxFrames)
            p.initialize(repeating: 0, count: maxFrames)
            return p
        }
        sumLeft = buffer(); sumRight = buffer()
        wetLeft = buffer(); wetRight = buffer()
        scratchLeft = buffer(); scratchRight = buffer()
        roomChanges = .allocate(capacity: maxFrames + 1)
        shapeChanges = .allocate(capacity: maxFrames + 1)
        inputLeft = buffer(); inputRight = buffer()
        roomShapes = .allocate(capacity: Room.allCases.count)
        for r in Room.allCases { (roomShapes + r.rawValue).initialize(to: r.shape) }
        filter.prepare(sampleRate: sampleRate, maxFrames: maxFrames)
        reverb.prepare(sampleRate: sampleRate, maxFrames: maxFrames)
        reverb.setRoom(state.room, crossfadeFrames: 0)
        shapeSent = state.reverbShape
        if !ReverbControls.isOwn(state.reverbShape, state.room.shape) {
            reverb.setShape(state.reverbShape)
            hasSentShape = true
        }
        player.prepare(sampleRate: sampleRate, maxFrames: maxFrames)
        mixer.prepare(sampleRate: sampleRate, maxFrames: maxFrames)
    }

    mutating func deallocate() {
        pending.deallocate()
        ramps.deallocate()
        rampParameters.deallocate()
        rampIndices.deallocate()
        rampLimits.deallocate()
        for p in [sumLeft, sumRight, wetLeft, wetRight, scratchLeft, scratchRight, inputLeft, inputRight] { p.deallocate() }
        roomChanges.deallocate()
        shapeChanges.deallocate()
        followingRoomRamps.deallocate()
        roomShapes.deallocate()
        reverb.deallocate()
        mixer.deallocate()
    }

    /// The target of every parameter (what `get` and `dump` report).
    public var targets: RackState {
        var s = RackState()
        for r in 0..<rampCount { s[rampParameters[r]] = ramps[r].target }
        s.room = room
        return s
    }

    /// The value a parameter has at the current sample time (mid-ramp values included).
    public func currentValue(_ id: ParameterID) -> Double {
        guard let r = rampIndices[id.index] else { return Double(room.rawValue) }
        return ramps[r].value(at: sampleTime)
    }

    /// True while any parameter is ramping.
    /// - Realtime: safe
    public var isRamping: Bool {
        @_noLocks get {
            for p in 0..<rampCount where ramps[p].isMoving(at: sampleTime) { return true }
            return false
        }
    }

    /// The ramp of continuous parameter `id` (a choice has none: a programming error).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func ramp(_ id: ParameterID) -> Ramp { ramps[rampIndices[id.index]!] }

    /// True when ramp `r` is one of a control that follows the room.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func followsRoom(_ r: Int) -> Bool {
        for k in 0..<followingRoomCount where followingRoomRamps[k] == r { return true }
        return false
    }

    /// Applies one event at absolute sample `t` (`offset` into the block) and echoes it to the
    /// control thread.
    /// - Realtime: safe
    @_noLocks
    mutating func apply(_ e: EngineEvent, at t: Int64, offset: Int, roomChangeCount: inout Int) {
        var echo = e
        echo.sampleTime = t
        switch e.action {
        case .play: player.setPlaying(true)
        case .stop: player.setPlaying(false)
        case let .attachPlayer(ring): player.attach(ring)
        case .releasedRing, .programChange: return
        case .marker, .restart: break
        case let .set(id, value, ramp): change(id, to: value, ramp: ramp, at: t, offset: offset, roomChangeCount: &roomChangeCount)
        case let .midiSet(id, value): change(id, to: value, ramp: .standard, at: t, offset: offset, roomChangeCount: &roomChangeCount)
        }
        if !applied.push(echo) { monitor.add(.droppedFeedback, 1) }
    }

    /// A parameter change at absolute sample `t`: a continuous parameter's ramp is retargeted;
    /// a room change is listed in `roomChanges` for the reverb stage.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func change(_ id: ParameterID, to value: Double, ramp: RampLength, at t: Int64, offset: Int,
                         roomChangeCount: inout Int) {
        let frames = ramp.resolvedFrames(rampLimits[id.index])
        if let r = rampIndices[id.index] {
            ramps[r].retarget(to: value, at: t, frames: t == roomChangedAt && followsRoom(r) ? 0 : frames)
            return
        }
        let r = Room.at(index: Int(value)) ?? room
        guard r != room else { return }
        room = r
        roomChangedAt = t
        // The controls that follow the room, changed at this sample before the room: at once.
        for k in 0..<followingRoomCount where ramps[followingRoomRamps[k]].startSample == t {
            ramps[followingRoomRamps[k]].retarget(to: ramps[followingRoomRamps[k]].target, at: t, frames: 0)
        }
        let listed = RoomChange(offset: offset, room: r, crossfadeFrames: Int(frames))
        // Collapse changes at the same sample into the last one.
        if roomChangeCount > 0 && roomChanges[roomChangeCount - 1].offset == offset {
            roomChanges[roomChangeCount - 1] = listed
        } else {
            roomChanges[roomChangeCount] = listed
            roomChangeCount += 1
        }
    }
}
