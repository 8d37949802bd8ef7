import RackEngine
import RackWire

/// A `/sync` waiting for the render thread: answered once the engine it came in for has taken
/// `posted` events from its queue.
struct PendingSync {
    let engine: ObjectIdentifier
    let posted: Int
    let answer: OSCMessage
    let to: OSCEndpoint
}

/// `/sync [id]` → `/synced [id]` once the render thread has taken every change posted before
/// it, as scsynth's `/sync` answers once the commands before it are done. `/pong` says only
/// that the control thread read what came before; a sender that paces itself by `/synced`
/// never overfills the render thread's queue, however late the server runs the rack's cycles.
/// Each handler gets the `EngineLink` (its waiting syncs and the shares of scheduled events)
/// and the context.
enum SyncCommands {
    /// `/sync` and `/rack/schedule/clear`.
    static let all = [
        OSCCommand(.sync, in: \.sync) { link, c, r throws(Reason) in try sync(link, c, r) },
        OSCCommand(.scheduleClear, in: \.sync) { link, c, r throws(Reason) in try clearSchedule(link, c, r) },
    ]

    static func sync(_ link: EngineLink, _ c: CommandContext, _ r: Request) throws(Reason) {
        let answer = OSCMessage(OSCReplyAddress.synced, r.arguments)
        guard link.linked, let engine = link.engine, engine.takenCount < engine.postedCount else {
            c.reply(answer, to: r.from)   // nothing in flight: the state already holds every change
            return
        }
        guard link.pendingSyncs.count < ControllerTuning.pendingSyncs else {
            throw Reason("busy: \(ControllerTuning.pendingSyncs) syncs are already waiting for the render thread")
        }
        link.pendingSyncs.append(PendingSync(engine: ObjectIdentifier(engine), posted: engine.postedCount, answer: answer, to: r.from))
    }

}

extension RackController {
    /// Answers the syncs whose changes the render thread has taken, in order. All of them when
    /// the engine went or was replaced: what it had not taken went with it, and the engine that
    /// comes back takes up the state, which holds every change.
    func answerSyncs() {
        guard !link.pendingSyncs.isEmpty else { return }
        let engine = link.linked ? link.engine : nil
        let taken = engine?.takenCount ?? 0
        let current = engine.map(ObjectIdentifier.init)
        let ready = link.pendingSyncs.prefix { $0.engine != current || $0.posted <= taken }
        for s in ready { replies.reply(s.answer, to: s.to) }
        link.pendingSyncs.removeFirst(ready.count)
    }
}

extension EventOwner {
    /// The sender `endpoint` as the owner of what it schedules.
    init(_ endpoint: OSCEndpoint) {
        self.init(address: endpoint.address, port: endpoint.port, isWebSocket: endpoint.transport == .webSocket)
    }
}

extension OSCEndpoint {
    /// The sender that posted events as `owner`.
    init(_ owner: EventOwner) {
        self.init(address: owner.address, port: owner.port, transport: owner.isWebSocket ? .webSocket : .udp)
    }
}

/// `/rack/schedule/clear` → `/rack/schedule/cleared i:count`: the sender's timetagged changes
/// still waiting for their time are dropped, and no one else's. The render thread drops them
/// (`EngineCommand.clearScheduled`) and says how many (`EngineNotice.clearedScheduled`); the
/// answer follows that notice.
extension SyncCommands {
    static func clearSchedule(_ link: EngineLink, _ c: CommandContext, _ r: Request) throws(Reason) {
        let owner = EventOwner(r.from)
        // Nothing of the sender waits, or no server runs (its rejoin drops every scheduled event).
        guard link.linked, let engine = link.engine, link.ledger.shares.held(by: owner) > 0 else {
            return c.reply(cleared(0), to: OSCEndpoint(owner))
        }
        guard engine.post(.clearScheduled(owner)) else { throw .busy }
        link.ledger.postedClear()
        c.awaitEchoes()
    }

    /// The answer that the render thread dropped `count` scheduled events of its sender.
    static func cleared(_ count: Int) -> OSCMessage {
        OSCMessage(OSCReplyAddress.scheduleCleared, [.int(Int32(clamping: count))])
    }
}
