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
extension RackController {
    static let syncCommands = [OSCCommand(.sync) { c, r throws(Reason) in try c.sync(r) }]

    func sync(_ r: Request) throws(Reason) {
        let answer = OSCMessage("/synced", r.arguments)
        guard engineLinked, let engine, engine.takenCount < engine.postedCount else {
            reply(answer, to: r.from)   // nothing in flight: the state already holds every change
            return
        }
        guard pendingSyncs.count < ControllerTuning.pendingSyncs else {
            throw Reason("busy: \(ControllerTuning.pendingSyncs) syncs are already waiting for the render thread")
        }
        pendingSyncs.append(PendingSync(engine: ObjectIdentifier(engine), posted: engine.postedCount, answer: answer, to: r.from))
    }

    /// Answers the syncs whose changes the render thread has taken, in order. All of them when
    /// the engine went or was replaced: what it had not taken went with it, and the engine that
    /// comes back takes up the state, which holds every change.
    func answerSyncs() {
        guard !pendingSyncs.isEmpty else { return }
        let engine = engineLinked ? self.engine : nil
        let taken = engine?.takenCount ?? 0
        let current = engine.map(ObjectIdentifier.init)
        let ready = pendingSyncs.prefix { $0.engine != current || $0.posted <= taken }
        for s in ready { reply(s.answer, to: s.to) }
        pendingSyncs.removeFirst(ready.count)
    }
}
