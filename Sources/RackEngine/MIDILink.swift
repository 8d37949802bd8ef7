/// The control thread's side of MIDI: owns the render thread's `MIDIRouter`, hands it new maps
/// through a one-slot lock-free mailbox (a table is allocated here, swapped in by the render
/// thread at the start of a cycle, and freed here once the render thread has let go of it),
/// queues the feedback CCs of the changes the control side learns of (`sendFeedback`), and
/// collects what the render thread saw: program changes and the last controller moved (learn).
///
/// Not thread-safe: one control thread uses it. The router must outlive every process cycle
/// that can run it (free the link only after the JACK client is closed).
public final class MIDILink: @unchecked Sendable {
    /// The router the process callback runs.
    public let router: UnsafeMutablePointer<MIDIRouter>
    /// The map in force (or about to be: see `isPending`).
    public private(set) var map: MIDIMap
    /// Only this channel (1…16) is obeyed; 0: omni.
    public let channelFilter: Int
    /// A table made but not yet handed over (the mailbox was busy).
    private var waiting: MIDITable?
    /// The control thread's own table of `map`, which feedback looks its controllers up in.
    private var feedbackTable: MIDITable
    /// The value each channel's controller was last sent or last sent us (`controllerKey`; nil:
    /// none yet), so feedback sends only what it does not show.
    private var shownValues = [UInt8?](repeating: nil, count: 16 * 128)
    /// The moved-controller word at the last look (learn compares against it).
    private var lastMoved = 0

    /// A link with `map`, obeying `channelFilter` (1…16, 0 = omni). Allocates.
    public init(map: MIDIMap, channelFilter: Int) {
        self.map = map
        self.channelFilter = channelFilter
        router = .allocate(capacity: 1)
        router.initialize(to: MIDIRouter())
        router.pointee.table = map.table(channelFilter: channelFilter)   // no cycle runs it yet
        feedbackTable = map.table(channelFilter: channelFilter)
    }

    deinit {
        if let t = router.pointee.table { t.deallocate() }
        collectRetired()
        if router.pointee.load(.incomingTable) != 0 { router.pointee.tableHeaders[MIDIRouter.Shared.incomingTable.rawValue]?.deallocate() }
        waiting?.deallocate()
        feedbackTable.deallocate()
        router.pointee.deallocate()
        router.deinitialize(count: 1)
        router.deallocate()
    }

    /// Replaces the map (the render thread takes it at the start of a cycle).
    public func set(_ newMap: MIDIMap) {
        map = newMap
        waiting?.deallocate()
        waiting = newMap.table(channelFilter: channelFilter)
        feedbackTable.deallocate()
        feedbackTable = newMap.table(channelFilter: channelFilter)
        handOver()
    }

    /// MIDI feedback: `parameter`'s new value `value` goes out as the CC of every controller
    /// bound to it in the map in force on this side (`MIDITable.forEachFeedback`), queued for
    /// the render thread, which writes it to `midi_out` at the start of its next cycle. A
    /// parameter no controller is bound to sends nothing; a full queue drops and counts
    /// (`feedbackDropped`).
    /// Only what a controller does not show already goes out: a CC whose last value sent, or
    /// last received from the controller (`noteFeedback`), is the same is left out (a value set
    /// again, a recall that leaves a parameter where it was), since a hardware port carries
    /// about 1,000 messages a second and a motorised fader has nothing to do.
    public func sendFeedback(_ parameter: ParameterID, value: Double) {
        let queue = router.pointee.feedback
        feedbackTable.forEachFeedback(of: parameter, value: value) { channel, controller, controllerValue in
            let key = Self.controllerKey(channel: channel, controller: controller)
            guard shownValues[key] != controllerValue else { return }
            shownValues[key] = controllerValue
            queue.push(channel: channel, controller: controller, value: controllerValue)
        }
    }

    /// Notes that the controllers bound to `parameter` show `value` without sending it: a value
    /// a controller set itself, or the state when MIDI starts.
    public func noteFeedback(_ parameter: ParameterID, value: Double) {
        feedbackTable.forEachFeedback(of: parameter, value: value) { channel, controller, controllerValue in
            shownValues[Self.controllerKey(channel: channel, controller: controller)] = controllerValue
        }
    }

    /// The index of a channel's (1…16) controller in `shownValues`.
    private static func controllerKey(channel: Int, controller: Int) -> Int { ((channel - 1) & 0x0F) * 128 + controller }

    /// Feedback CCs dropped because the queue to the render thread was full.
    public var feedbackDropped: Int { router.pointee.feedback.dropped }

    /// Control-thread housekeeping, call often: frees the table the render thread let go of and
    /// hands over a waiting one.
    public func poll() {
        collectRetired()
        handOver()
    }

    /// True while a map waits to be handed over or taken.
    public var isPending: Bool { waiting != nil || router.pointee.load(.incomingTable) != 0 }

    private func collectRetired() {
        guard router.pointee.load(.retiredTable) != 0 else { return }
        router.pointee.tableHeaders[MIDIRouter.Shared.retiredTable.rawValue]?.deallocate()
        router.pointee.tableHeaders[MIDIRouter.Shared.retiredTable.rawValue] = nil
        router.pointee.store(.retiredTable, 0)
    }

    private func handOver() {
        guard let w = waiting, router.pointee.load(.incomingTable) == 0 else { return }
        router.pointee.tableHeaders[MIDIRouter.Shared.incomingTable.rawValue] = w
        router.pointee.store(.incomingTable, Int(bitPattern: w.slots))
        waiting = nil
    }

    /// Program changes received since the last call (program numbers 0…127, oldest first).
    public func takeProgramChanges() -> [Int] {
        var out: [Int] = []
        while let program = router.pointee.programs.pop() { out.append(program) }
        return out
    }

    /// The controller moved since the last call to `startWatching` or this, if any:
    /// (channel 1…16, controller 0…127).
    public func takeMovedController() -> (channel: Int, controller: Int)? {
        let word = router.pointee.load(.movedController)
        guard word != lastMoved else { return nil }
        lastMoved = word
        return (((word >> 8) & 0x0F) + 1, word & 0x7F)
    }

    /// Forgets controllers moved so far (MIDI learn starts now).
    public func startWatching() { lastMoved = router.pointee.load(.movedController) }

    /// MIDI events the render thread could not schedule (full lists).
    public var eventsDropped: Int { router.pointee.load(.droppedEvents) }
}
