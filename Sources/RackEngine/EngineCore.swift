import RackDSP

/// Constants of the engine's scheduling, in seconds, scaled by the sample rate at prepare.
public enum EngineTuning {
    /// Control period: coefficients are computed at control ticks on absolute sample positions
    /// every this many seconds (32 frames at 48 kHz) and interpolated linearly between them.
    public static let controlPeriodSeconds = 32.0 / 48_000
    /// Slots of the notice queue beyond the events that can be in flight: the rings the
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

/// The reverb's shaping controls from an offset in the block on: `shape` there, moving along
/// the straight line to `target` over the next `frames` samples (the control segment's end).
struct ShapeChange {
    var offset: Int
    var shape: ReverbShape
    var target: ReverbShape
    var frames: Int
}

/// Everything the render thread touches: plain values and buffers allocated in `init`, no
/// class references. Noncopyable: `Engine` holds the one instance and drops it in its own
/// `deinit` (on the thread that lets go of the engine, never the render thread), which frees
/// every buffer here. `rackRender` (Render.swift) runs it.
public struct EngineCore: ~Copyable {
    public let sampleRate: Double
    public let maxFrames: Int
    let controlPeriod: Int64
    /// Absolute sample position of the next frame to render.
    public internal(set) var sampleTime: Int64 = 0

    /// One ramp per continuous parameter, in the order of `Parameters.continuous`.
    let rampStorage: UniqueBuffer<Ramp>
    /// How many ramps there are.
    let rampCount: Int
    /// The parameter of each ramp, in the order of `ramps`.
    let rampParameterStorage: UniqueBuffer<ParameterID>
    /// The index in `ramps` of each parameter, indexed by `ParameterID.index`; nil for a
    /// choice (`room`), which has no ramp.
    let rampIndexStorage: UniqueBuffer<Int?>
    /// Every parameter's default and longest ramp in frames, indexed by `ParameterID.index`.
    let rampLimitStorage: UniqueBuffer<RampLimits>
    /// The kernel setting each ramp feeds (its row's `binding`), in the order of `ramps`.
    let rampBindingStorage: UniqueBuffer<KernelBinding>
    public internal(set) var room: Room
    /// The kernels on the dry path before the reverb (the low-pass).
    var dry = DryKernels()
    var reverb = Reverb()
    var player = Player()
    var mixer = WetDryGain()

    /// The current control segment [segmentStart, segmentEnd).
    var segmentStart: Int64 = 0
    var segmentEnd: Int64 = 0

    /// Control → render: the control thread's commands.
    let queue: CommandQueue
    /// Render → render: the events the render thread's own stages submit (the MIDI stage's,
    /// `submit`), taken after `queue` at the next drain.
    let inbox: CommandQueue
    /// Render → control: every event as applied (with the sample it took effect at), restarts
    /// and the rings the player let go of.
    let notices: NoticeQueue
    /// Counters the control thread reads while the render thread runs.
    let monitor: EngineMonitor
    /// Commands drained from `queue` and `inbox`: immediate ones first, in arrival order, then
    /// scheduled events in (sample time, arrival) order (`EventSchedule`). Only `drain` adds to
    /// it (and, between render calls, the offline driver's `scheduleGrowing`).
    private var pending: EventSchedule
    /// Submitted events that found the scheduled list full when drained, not yet taken by
    /// their stage (`takeDroppedSubmissions`).
    private var droppedSubmissions = 0

    /// Events dropped because a pending list was full (0 unless the control side broke its
    /// bound; published as `EngineMonitor.Counter.droppedEvents`).
    /// - Realtime: safe
    public var droppedEvents: Int { @_noLocks get { pending.droppedEvents } }

    /// Scheduled events waiting.
    /// - Realtime: safe
    var scheduledCount: Int { @_noLocks get { pending.scheduledCount } }

    /// The sample time of the earliest scheduled event waiting, if any.
    /// - Realtime: safe
    var nextScheduledTime: Int64? { @_noLocks get { pending.scheduled.peekSample() } }

    /// The block's dry sum (input + player, filtered in place), the reverb's output, and the
    /// player's scratch space: `maxFrames` frames each (`sumLeft` … `scratchRight` below).
    let sum, wet, scratch: UniqueStereo
    /// The room changes the reverb stage sets in the current block, in offset order.
    let roomChangeStorage: UniqueBuffer<RoomChange>
    /// The shapes the reverb stage sets in the current block, in offset order.
    let shapeChangeStorage: UniqueBuffer<ShapeChange>
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
    let followingRoomRampStorage: UniqueBuffer<Int>
    let followingRoomCount: Int
    /// The sample of the last room change (nil until the first).
    var roomChangedAt: Int64?
    /// Each room's own values (`Room.shape`), by `Room.index`.
    let roomShapeStorage: UniqueBuffer<ReverbShape>
    /// The block's unprocessed input (the dry sum before the filter), kept where `bypass` is
    /// not 0: `maxFrames` frames each.
    let input: UniqueStereo

    // The buffers above as plain pointers, for the render path (valid while the core lives).
    var ramps: UnsafeMutablePointer<Ramp> { @_noLocks @inline(__always) get { rampStorage.base } }
    var rampParameters: UnsafeMutablePointer<ParameterID> { @_noLocks @inline(__always) get { rampParameterStorage.base } }
    var rampIndices: UnsafeMutablePointer<Int?> { @_noLocks @inline(__always) get { rampIndexStorage.base } }
    var rampLimits: UnsafeMutablePointer<RampLimits> { @_noLocks @inline(__always) get { rampLimitStorage.base } }
    var rampBindings: UnsafeMutablePointer<KernelBinding> { @_noLocks @inline(__always) get { rampBindingStorage.base } }
    var roomChanges: UnsafeMutablePointer<RoomChange> { @_noLocks @inline(__always) get { roomChangeStorage.base } }
    var shapeChanges: UnsafeMutablePointer<ShapeChange> { @_noLocks @inline(__always) get { shapeChangeStorage.base } }
    var followingRoomRamps: UnsafeMutablePointer<Int> { @_noLocks @inline(__always) get { followingRoomRampStorage.base } }
    var roomShapes: UnsafeMutablePointer<ReverbShape> { @_noLocks @inline(__always) get { roomShapeStorage.base } }
    var sumLeft: UnsafeMutablePointer<Float> { @_noLocks @inline(__always) get { sum.left.base } }
    var sumRight: UnsafeMutablePointer<Float> { @_noLocks @inline(__always) get { sum.right.base } }
    /// Clears the audio's history, so silence in gives silence out from the next sample: the
    /// low-pass's state and the reverb's memories (its tail), a running room crossfade dropped
    /// for the room last asked for. Parameters, ramps and pending events stay as they are.
    /// - Realtime: safe (one pass over the reverb's memories)
    @_noLocks
    package mutating func clearHistory() {
        dry.reset()
        reverb.reset()
    }

    /// The reverb's input in the last render call, from its first frame: the dry sum after the
    /// low-pass, faded by bypass (a plugin's meter reads it).
    /// - Realtime: safe
    package var reverbInput: (left: UnsafePointer<Float>, right: UnsafePointer<Float>) {
        @_noLocks @inline(__always) get { (UnsafePointer(sum.left.base), UnsafePointer(sum.right.base)) }
    }
    var wetLeft: UnsafeMutablePointer<Float> { @_noLocks @inline(__always) get { wet.left.base } }
    var wetRight: UnsafeMutablePointer<Float> { @_noLocks @inline(__always) get { wet.right.base } }
    var scratchLeft: UnsafeMutablePointer<Float> { @_noLocks @inline(__always) get { scratch.left.base } }
    var scratchRight: UnsafeMutablePointer<Float> { @_noLocks @inline(__always) get { scratch.right.base } }
    var inputLeft: UnsafeMutablePointer<Float> { @_noLocks @inline(__always) get { input.left.base } }
    var inputRight: UnsafeMutablePointer<Float> { @_noLocks @inline(__always) get { input.right.base } }

    /// Sets everything up for `sampleRate` and at most `maxFrames` per render call, starting
    /// at `state` (values in parameter units, room as an index). Allocates; not realtime.
    init(sampleRate: Double, maxFrames: Int, state: RackState, queue: CommandQueue,
         notices: NoticeQueue, monitor: EngineMonitor, pendingCapacity: Int) {
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames
        controlPeriod = max(1, Int64((EngineTuning.controlPeriodSeconds * sampleRate).rounded()))
        self.queue = queue
        inbox = CommandQueue(minimumCapacity: pendingCapacity)
        self.notices = notices
        self.monitor = monitor
        pending = EventSchedule(scheduledCapacity: pendingCapacity, immediateCapacity: 2 * queue.cursor.capacity)
        let continuous = Parameters.continuous
        rampCount = continuous.count
        rampStorage = UniqueBuffer(count: rampCount) { r in
            Ramp(value: state[continuous[r].id], shape: continuous[r].rampShape, timing: continuous[r].rampTiming)
        }
        rampParameterStorage = UniqueBuffer(count: rampCount) { r in continuous[r].id }
        rampBindingStorage = UniqueBuffer(count: rampCount) { r in continuous[r].binding }
        let rampIndices = UniqueBuffer<Int?>(repeating: nil, count: Parameters.all.count)
        for (r, spec) in continuous.enumerated() { rampIndices.base[spec.id.index] = r }
        let following = ReverbControls.followingRoom
        followingRoomCount = following.count
        followingRoomRampStorage = UniqueBuffer(count: following.count) { k in rampIndices.base[following[k].index]! }
        rampIndexStorage = rampIndices
        let rampLimits = UniqueBuffer(repeating: RampLimits(defaultFrames: 0, maximumFrames: 0), count: Parameters.all.count)
        for spec in Parameters.all { rampLimits.base[spec.id.index] = spec.rampLimits(sampleRate: sampleRate) }
        rampLimitStorage = rampLimits
        room = state.room
        sum = UniqueStereo(frames: maxFrames)
        wet = UniqueStereo(frames: maxFrames)
        scratch = UniqueStereo(frames: maxFrames)
        roomChangeStorage = UniqueBuffer(repeating: RoomChange(offset: 0, room: state.room, crossfadeFrames: 0), count: maxFrames + 1)
        shapeChangeStorage = UniqueBuffer(repeating: ShapeChange(offset: 0, shape: state.reverbShape, target: state.reverbShape, frames: 0), count: maxFrames + 1)
        input = UniqueStereo(frames: maxFrames)
        let roomShapes = UniqueBuffer(repeating: state.room.shape, count: Room.allCases.count)
        for r in Room.allCases { roomShapes.base[r.rawValue] = r.shape }
        roomShapeStorage = roomShapes
        dry.prepare(sampleRate: sampleRate, maxFrames: maxFrames)
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

    deinit {
        // The MIDI stage's inbox is a buffer freed by hand; everything else here (the reverb
        // included) frees itself.
        inbox.deallocate()
    }

    /// The target of every parameter (what `get` and `dump` report).
    public var targets: RackState {
        var s = RackState()
        for r in 0..<rampCount { s[rampParameters[r]] = ramps[r].target }
        s.room = room
        return s
    }

    /// The value a parameter has at the current sample time (mid-ramp values included). For
    /// this package's tests: `package`, not public API.
    package func currentValue(_ id: ParameterID) -> Double {
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

    /// Every kernel setting at sample `t`: one loop over the ramps, each through its row's
    /// binding (`KernelBinding.apply`).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func kernelSettings(at t: Int64) -> KernelSettings {
        var settings = KernelSettings()
        for r in 0..<rampCount { rampBindings[r].apply(ramps[r].value(at: t), to: &settings) }
        return settings
    }

    /// True when ramp `r` is one of a control that follows the room.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func followsRoom(_ r: Int) -> Bool {
        for k in 0..<followingRoomCount where followingRoomRamps[k] == r { return true }
        return false
    }

    /// The one way a render-thread stage (the MIDI stage) hands the engine an event: it joins
    /// the pending lists at the next drain, after the control thread's commands, so it only
    /// takes scheduled-list room the control side has not counted on. False when the inbox is
    /// full (the event is dropped; the caller counts it).
    /// - Realtime: safe
    @_noLocks
    public mutating func submit(_ e: EngineEvent) -> Bool { inbox.push(.event(e)) }

    /// The submitted events dropped since the last call because the scheduled list was full.
    /// - Realtime: safe
    @_noLocks
    public mutating func takeDroppedSubmissions() -> Int {
        let n = droppedSubmissions
        droppedSubmissions = 0
        return n
    }

    /// Once per render call: the control thread's commands join the pending lists, then the
    /// events the render thread's stages submitted (each only where the scheduled list has
    /// room: the control side's scheduled events are counted on, these are not).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func drain() {
        while let c = queue.pop() { pending.insert(c) }
        while let c = inbox.pop() {
            if pending.scheduledCount >= pending.scheduled.capacity {
                droppedSubmissions &+= 1
            } else {
                pending.insert(c)
            }
        }
    }

    /// Between render calls, on the owner's thread: an event joins the pending lists, the
    /// scheduled list growing rather than drop (the offline driver's path). Allocates.
    mutating func scheduleGrowing(_ e: EngineEvent) { pending.insertGrowing(e) }

    /// Applies every command that is due at `t` (late events apply now); returns how many.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func applyDueEvents(at t: Int64, offset: Int, roomChangeCount: inout Int) -> Int {
        var due = 0
        while let d = pending.next(dueAt: t) {
            apply(d, at: t, offset: offset, roomChangeCount: &roomChangeCount)
            due += 1
        }
        return due
    }

    /// Applies one due command at absolute sample `t` (`offset` into the block) and tells the
    /// control thread (a ring attached has nothing to tell).
    /// - Realtime: safe
    @_noLocks
    mutating func apply(_ d: EventSchedule.Due, at t: Int64, offset: Int, roomChangeCount: inout Int) {
        switch d {
        case let .event(e): apply(e, at: t, offset: offset, roomChangeCount: &roomChangeCount)
        case let .attachPlayer(ring): player.attach(ring)
        case let .restart(dropped): notify(.restarted(droppedEvents: dropped))
        case let .clearScheduled(owner, dropped): notify(.clearedScheduled(owner, droppedEvents: dropped))
        }
    }

    /// Applies one event at absolute sample `t` (`offset` into the block) and tells the control
    /// thread of it.
    /// - Realtime: safe
    @_noLocks
    mutating func apply(_ e: EngineEvent, at t: Int64, offset: Int, roomChangeCount: inout Int) {
        switch e.action {
        case .play: player.setPlaying(true)
        case .stop: player.setPlaying(false)
        case .marker: break
        case let .set(id, value, ramp): change(id, to: value, ramp: ramp, at: t, offset: offset, roomChangeCount: &roomChangeCount)
        case let .midiSet(id, value): change(id, to: value, ramp: .standard, at: t, offset: offset, roomChangeCount: &roomChangeCount)
        }
        notify(.applied(AppliedEvent(e.action, sampleTime: t, isScheduled: e.isScheduled, owner: e.owner)))
    }

    /// Tells the control thread; a notice that finds its queue full is counted.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func notify(_ n: EngineNotice) {
        if !notices.push(n) { monitor.add(.droppedFeedback, 1) }
    }

    /// A parameter change at absolute sample `t`: a continuous parameter's ramp is retargeted;
    /// a room change is listed in `roomChanges` for the reverb stage.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func change(_ id: ParameterID, to value: Double, ramp: RampLength, at t: Int64, offset: Int,
                         roomChangeCount: inout Int) {
        let frames = ramp.resolvedFrames(rampLimits[id.index])
        // The buffers as plain pointers first: Swift 6.3's thread-sanitizer debug build cannot
        // instrument a mutating access through a computed pointer of this noncopyable struct
        // ("Invalid bitcast"); the compiler emits the same code either way otherwise.
        let ramps = self.ramps, followingRoomRamps = self.followingRoomRamps, roomChanges = self.roomChanges
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
