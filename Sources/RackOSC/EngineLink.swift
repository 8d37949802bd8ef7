import RackDSP
import RackEngine
import RackWire

/// What the controller hands the render thread, and when: the rack's state and its one writer
/// (`ControlState`, through `submit`), timetags mapped to samples (once per datagram, within
/// the scheduling horizon), the bound on scheduled events (`EngineLedger`), `/sync`s waiting for
/// the render thread, and the link to a server that may go away (changes update the state
/// meanwhile; the engine takes it up on rejoin).
final class EngineLink {
    let host: RackHost
    /// Whom refusals and answers go to, and the clock of the echo window and the budgets.
    let replies: ReplyChannel
    /// The rack's state and its one writer (targets, the preset recalled last): every
    /// transport submits its changes to it (`submit`), and the engine's echoes come back to it
    /// (`drain`). Written in this file only, through `ControlState`'s methods.
    private(set) var state: ControlState
    /// The change records of `state`, which every sink of feedback is derived from.
    let changes = ChangeStream()
    /// Scheduled events and restarts in flight to the render thread.
    var ledger = EngineLedger()
    /// `/sync` requests waiting for the render thread to take what came before them.
    var pendingSyncs: [PendingSync] = []
    /// Whether the engine was rendered at the last look (`host.isRunning`).
    private(set) var linked: Bool
    /// The engine must take up the controller's state (the driver rejoined; posted as soon
    /// as its queue has room).
    private(set) var restartPending = false
    /// The datagram being handled: its timetags, the parameters it set, its costly work.
    var datagram = DatagramState()
    /// The sender of the message being handled: the scheduled events it posts are its own
    /// (their share, `/rack/schedule/clear`).
    var sender: OSCEndpoint?
    /// Until when (seconds on the clock) the loop looks for echoes at the short interval: a while
    /// after the last post and the last echo (`awaitEchoes`).
    private(set) var echoesAwaitedUntil = -Double.infinity
    /// The moment timetags are measured from (the wall clock, as senders' timetags are); tests
    /// set their own, so that how long a test process waits to run moves no timetag.
    var timeTagNow: () -> OSCTimeTag = { .now() }
    /// The last events the render thread reported as applied (newest last, at most
    /// `ControllerTuning.lastAppliedCount`).
    var lastApplied: [AppliedEvent] = []

    init(host: RackHost, replies: ReplyChannel, state: ControlState) {
        self.host = host
        self.replies = replies
        self.state = state
        linked = host.isRunning
    }

    var engine: Engine? { host.engine }
    /// The engine's sample rate (Hz); 48 kHz while there is none.
    var sampleRate: Double { engine?.sampleRate ?? 48_000 }

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
        guard linked, let s = host.engineSample(secondsFromNow: ahead) else { return .failure(.cannotSchedule) }
        return .success(.at(s))
    }

    /// The one way a transport changes the rack's state: `change`'s events at `t` (now or an
    /// engine sample) are posted, all or nothing (see `post(_:)`), then the state commits it. Nothing is
    /// the target that was refused (queue full, too many scheduled, no server for a timetag).
    /// While no server runs, the change's records go to the change stream at once (the engine
    /// takes the state up on rejoin); otherwise they follow from the engine's echoes.
    /// An immediate change that changes nothing (`ControlState.news`) is left out. `origin`:
    /// the endpoint that asked, which its records carry (`ChangeRecord.origin`).
    func submit(_ change: StateChange, at t: EventTime, origin: OSCEndpoint?) throws(Reason) {
        guard let change = t == .now ? state.news(in: change) : change else { return }
        let posted = try post(state.events(for: change, at: t))
        changes.publish(state.commit(change, at: t, posted: posted, origin: origin))
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
    /// up when the driver rejoins (`restartIfPending`).
    @discardableResult
    func post(_ events: [EngineEvent]) throws(Reason) -> Bool {
        guard let engine else { throw .busy }
        var events = events
        var scheduled = 0
        for i in events.indices {
            events[i].isScheduled = events[i].time != .now
            if events[i].isScheduled { scheduled += 1 }
        }
        guard linked else {
            if scheduled > 0 { throw .cannotSchedule }
            return false
        }
        let owner = sender.map(EventOwner.init)
        let trusted = sender.map(replies.trusts) ?? true
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

    /// Follows the driver: a server that came back is to take up the controller's state
    /// (`restartIfPending`); one that went is logged.
    func followHost() {
        let running = host.isRunning
        guard running != linked else { return }
        linked = running
        if running {
            restartPending = true
        } else {
            replies.log("JACK server gone: changes update the state and the engine takes it up on rejoin")
        }
    }

    /// Takes the engine's notices, in order: each event applied goes back to the state, and
    /// what it changed goes to the change stream; a restart's drops are logged. Rings the player
    /// let go of go to `released`, the counts of `/rack/schedule/clear` to `cleared`.
    func drain(released: (StereoRing) -> Void, cleared: (Int, EventOwner) -> Void) {
        guard let engine else { return }
        while let notice = engine.nextNotice() {
            awaitEchoes()
            switch notice {
            case let .applied(e):
                if ledger.echoed(e) { changes.publish(state.absorb(e)) }
            case let .restarted(dropped):
                ledger.restarted()
                if dropped > 0 {
                    replies.log("\(dropped) timetagged changes waiting when the JACK server went were dropped (never applied, never reported)")
                }
            case let .releasedRing(ring):
                released(ring)
            case let .clearedScheduled(owner, dropped):
                state.forgetRecalls(ledger.cleared(dropped, by: owner))
                cleared(dropped, owner)
            }
        }
    }

    /// Posts a `restart` and the controller's state, each parameter without a ramp, and the
    /// transport (`playing`): the engine drops the scheduled events of before the outage and
    /// starts from the latest state, whatever was queued before the server went.
    func restartIfPending(playing: Bool) {
        guard restartPending, linked, let engine else { return }
        var events = state.targets.events(at: .now, ramp: .jump)
        events.append(EngineEvent(.now, playing ? .play : .stop))
        guard engine.queueSpace >= 1 + events.count else { return }   // tried again on the next pass
        _ = engine.post(.restart)
        for e in events { _ = engine.post(e) }
        restartPending = false
        ledger.postedRestart()
    }

    /// A new engine: the preset recalls and scheduled events in flight to the old one are forgotten.
    func forgetInFlight() {
        state.forgetInFlight()
        ledger.reset()
    }

    /// Something was posted, or an echo came: more may follow within the echo window.
    func awaitEchoes() { echoesAwaitedUntil = replies.now + ControllerTuning.echoWindowSeconds }

    /// Whether the render thread may have echoes the loop is waiting for: within
    /// `ControllerTuning.echoWindowSeconds` of the last post or echo, while scheduled events
    /// wait to sound, while the engine is to take up the state (or the driver has just joined or
    /// lost a server the controller has not seen come or go yet).
    func awaitsEchoes(now: Double) -> Bool {
        now < echoesAwaitedUntil || ledger.scheduled > 0 || restartPending || host.isRunning != linked
    }
}
