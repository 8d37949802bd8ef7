import RackEngine
import RackWire

/// What the controller hands the render thread, and when: timetags mapped to samples (once per
/// datagram, within the scheduling horizon), the bound on scheduled events, and the link to a
/// server that may go away (changes update the state meanwhile; the engine takes it up on
/// rejoin).
extension RackController {
    /// When a timetag's message applies: now when it says so or its time has passed, else at an
    /// engine sample;
    /// refused beyond `ControllerTuning.scheduleHorizonSeconds` or while no server runs. Mapped
    /// once per datagram and timetag, so all messages of a bundle land on the same sample.
    func sample(for tag: OSCTimeTag) throws(Reason) -> EventTime {
        if tag.isImmediate { return .now }
        if let known = datagram.timeMappings[tag.raw] { return try known.get() }
        let mapped = map(tag)
        datagram.timeMappings[tag.raw] = mapped
        return try mapped.get()
    }

    private func map(_ tag: OSCTimeTag) -> Result<EventTime, Reason> {
        let ahead = tag.seconds(since: timeTagNow())
        guard ahead > 0 else { return .success(.now) }
        guard ahead <= ControllerTuning.scheduleHorizonSeconds else { return .failure(.beyondHorizon(ahead)) }
        guard engineLinked, let s = host.engineSample(secondsFromNow: ahead) else { return .failure(.cannotSchedule) }
        return .success(.at(s))
    }

    /// Hands `event` to the render thread (see `post(_:)` for the rules).
    @discardableResult
    func post(_ event: EngineEvent) throws(Reason) -> Bool { try post([event]) }

    /// Hands `events` to the render thread, all or none. An event with a sample time is
    /// scheduled: refused when the engine already has `scheduledCapacity` of them waiting, or
    /// the sender of the message being handled (`sender`) would hold more than its share of
    /// them (`ControllerTuning.scheduleShare`); they are posted as that sender's.
    /// Refused when the queue has no room. While no server runs nothing is posted and false
    /// is returned: `submit` applies immediate changes to the state, which the engine takes
    /// up when the driver rejoins (`restartEngine`).
    @discardableResult
    func post(_ events: [EngineEvent]) throws(Reason) -> Bool {
        guard let engine else { throw .busy }
        var events = events
        var scheduled = 0
        for i in events.indices {
            events[i].isScheduled = events[i].time != .now
            if events[i].isScheduled { scheduled += 1 }
        }
        guard engineLinked else {
            if scheduled > 0 { throw .cannotSchedule }
            return false
        }
        let owner = sender.map(EventOwner.init)
        let trusted = sender.map(trusts) ?? true
        if scheduled > 0 {
            let share = ControllerTuning.scheduleShare(capacity: engine.scheduledCapacity)
            if let refusal = share.refusal(claiming: scheduled, held: ledger.scheduled, heldRemotely: ledger.shares.remote,
                                           heldByAddress: owner.map { ledger.shares.held(byAddress: $0.address) } ?? 0, trusted: trusted) {
                throw .scheduleShare(refusal, share)
            }
        }
        guard engine.queueSpace >= events.count else { throw .busy }
        for var e in events {
            if e.isScheduled, let owner {
                e.owner = owner
                ledger.posted(e, by: owner)
            }
            _ = engine.post(e)
        }
        ledger.posted(scheduled: scheduled, by: owner, trusted: trusted)
        awaitEchoes()
        return true
    }

    // MARK: - The engine's link

    /// Relays what the render thread applied, and follows the driver: after a rejoin the
    /// engine takes up the controller's state.
    func syncWithEngine() {
        let running = host.isRunning
        if running != engineLinked {
            engineLinked = running
            if running {
                restartPending = true
            } else {
                log("JACK server gone: changes update the state and the engine takes it up on rejoin")
            }
        }
        drainApplied()
        if restartPending && engineLinked { restartEngine() }
    }

    /// Posts a `restart` and the controller's state, each parameter without a ramp, and the
    /// transport: the engine drops the scheduled events of before the outage and starts from
    /// the latest state, whatever was queued before the server went.
    private func restartEngine() {
        guard let engine else { return }
        var events = targets.events(at: .now, ramp: .jump)
        events.append(EngineEvent(.now, player.playing ? .play : .stop))
        guard engine.queueSpace >= 1 + events.count else { return }   // tried again on the next pass
        _ = engine.post(.restart)
        for e in events { _ = engine.post(e) }
        restartPending = false
        ledger.postedRestart()
    }
}
