import RackDSP

/// The rack's engine: one stereo graph (player + input → low-pass → reverb wet/dry → gain)
/// rendered on request, in the manner of AVAudioEngine's manual rendering. A driver (the JACK
/// client, the offline renderer, a test) owns it and calls `render` with at most `maxFrames`
/// frames; the JACK callback calls `rackRender(engine.core, ...)` directly through a context
/// pointer. The control side talks to the render thread only through `post` (a lock-free SPSC
/// queue).
public final class Engine: @unchecked Sendable {
    /// Render rate in Hz.
    public let sampleRate: Double
    /// Largest frame count a single render call may ask for.
    public let maxFrames: Int
    /// The render state. Only the render thread touches it while rendering.
    public let core: UnsafeMutablePointer<EngineCore>
    private let queue: CommandQueue
    private let notices: NoticeQueue
    /// Counters published by the render thread.
    public let monitor: EngineMonitor

    /// How many scheduled (timetagged) events the engine keeps waiting for their sample. The
    /// control side must not have more in flight (posted and not yet echoed back as applied);
    /// `RackController` refuses the rest with `/rack/error`.
    public let scheduledCapacity: Int

    /// Prepares an engine at `sampleRate` for render calls of up to `maxFrames` frames,
    /// starting from `state` (no ramp: this is setup, not a change). Allocates everything the
    /// render path will use.
    ///
    /// The notice queue (render → control) holds `queueCapacity + pendingCapacity` plus a
    /// margin: at most that many notices can be outstanding while the control thread drains
    /// them before each message it handles, so no notice is ever lost (scheduled values become
    /// targets through their notices).
    public init(sampleRate: Double, maxFrames: Int, state: RackState = RackState(),
                queueCapacity: Int = 4096, pendingCapacity: Int = 4096) {
        precondition(sampleRate > 0 && maxFrames > 0)
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames
        scheduledCapacity = pendingCapacity
        queue = CommandQueue(minimumCapacity: queueCapacity)
        notices = NoticeQueue(minimumCapacity: queue.cursor.capacity + pendingCapacity + EngineTuning.echoMargin)
        monitor = EngineMonitor()
        core = .allocate(capacity: 1)
        core.initialize(to: EngineCore(sampleRate: sampleRate, maxFrames: maxFrames, state: state,
                                       queue: queue, notices: notices, monitor: monitor,
                                       pendingCapacity: pendingCapacity))
    }

    deinit {
        core.deinitialize(count: 1)
        core.deallocate()
        queue.deallocate()
        notices.deallocate()
        monitor.deallocate()
    }

    /// Control thread: hands a command to the render thread. Lock-free; false when the queue is
    /// full (the caller reports the drop).
    public func post(_ command: EngineCommand) -> Bool { queue.push(command) }

    /// Control thread: hands an event to the render thread (`post(.event(event))`).
    public func post(_ event: EngineEvent) -> Bool { post(.event(event)) }

    /// Control thread: events posted since the engine was made, and how many of them the
    /// render thread has taken from its queue (`/sync` waits for the second to reach the first).
    public var postedCount: Int { queue.cursor.pushedCount }
    public var takenCount: Int { queue.cursor.poppedCount }

    /// Control thread: how many events `post` can take now.
    public var queueSpace: Int { queue.cursor.capacity - queue.cursor.count }

    /// Control thread: the render thread's next notice (an event applied, a restart, a ring
    /// released). Lock-free.
    public func nextNotice() -> EngineNotice? { notices.pop() }

    /// Owner's thread, between render calls: adds an event straight to the pending lists
    /// (the offline driver's path; no queue hop). The scheduled list grows rather than drop.
    public func schedule(_ event: EngineEvent) { core.pointee.scheduleGrowing(event) }

    /// Scheduled events waiting in the engine (owner's thread, while not rendering). For this
    /// package's tests: `package`, not public API.
    package var scheduledWaiting: Int { core.pointee.scheduledCount }

    /// Events the render thread dropped because a pending list was full (0 unless the
    /// control side broke its bound).
    public var droppedEvents: Int { monitor.get(.droppedEvents) }

    /// Renders `frames` frames. Input buffers may be nil (silence).
    public func render(frames: Int, inputLeft: UnsafePointer<Float>?, inputRight: UnsafePointer<Float>?,
                       outputLeft: UnsafeMutablePointer<Float>, outputRight: UnsafeMutablePointer<Float>) -> RenderStatus {
        rackRender(core, frames: frames, inputLeft: inputLeft, inputRight: inputRight,
                   outputLeft: outputLeft, outputRight: outputRight)
    }

    /// How far ahead of a render call its events must be scheduled for the result not to
    /// depend on the block size: a control segment never reaches further than one control
    /// period, so events up to `end of the call + lookaheadFrames` are enough.
    public var lookaheadFrames: Int { Int(core.pointee.controlPeriod) }

    /// Absolute sample position of the next frame (owner's thread).
    public var sampleTime: Int64 { core.pointee.sampleTime }

    /// Owner's thread, while not rendering: plays `ring` through the player (nil detaches).
    /// `fadeIn` false starts it at full level (an offline render: the file as it is).
    public func attachPlayer(_ ring: StereoRing?, playing: Bool, fadeIn: Bool = true) {
        core.pointee.player.attach(ring)
        if playing && !fadeIn {
            core.pointee.player.playFromFullLevel()
        } else {
            core.pointee.player.setPlaying(playing)
        }
    }

    /// Target values now (owner's thread).
    public var targets: RackState { core.pointee.targets }

    /// Converts seconds to frames at the engine rate.
    public func frames(seconds: Double) -> Int64 { Int64((seconds * sampleRate).rounded()) }
}

extension Engine {
    /// The queue `post` pushes to and the one `nextNotice` pops from, for a driver whose render
    /// thread is also its control thread (the LV2 plugin's `run()`): their `push` and `pop`
    /// are realtime-safe where these class methods are not checked.
    public var controlQueue: CommandQueue { queue }
    public var noticeQueue: NoticeQueue { notices }
}

/// DSP time per render cycle as a driver measured it, over the cycles since the last look.
public struct CycleStats: Sendable {
    public var cycles = 0
    public var medianMicroseconds = 0.0
    public var p99Microseconds = 0.0
    public var maxMicroseconds = 0.0

    public init(cycles: Int = 0, medianMicroseconds: Double = 0, p99Microseconds: Double = 0, maxMicroseconds: Double = 0) {
        self.cycles = cycles
        self.medianMicroseconds = medianMicroseconds
        self.p99Microseconds = p99Microseconds
        self.maxMicroseconds = maxMicroseconds
    }
}
