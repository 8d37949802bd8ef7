import Foundation

/// When the control loop has work of its own: it sleeps until a datagram or a wake comes, or
/// until the first of these is due. Nothing here is periodic unless something is pending.
extension RackController {
    /// The first moment (seconds on `clock`) the controller has work that no datagram and no
    /// wake announces; nil: none until one comes. Pending are: echoes of what was posted to the
    /// render thread and `/sync` answers (looked for at `ControllerTuning.echoLookSeconds` while awaited), the
    /// meters while anyone subscribed or the HTTP side listens (at `ControllerTuning.meterHz`),
    /// the first subscription lease to run out, and the recording's next flush.
    func nextDeadline(now: Double) -> Double? {
        var due: [Double] = []
        if awaitsEchoes(now: now) || !link.pendingSyncs.isEmpty { due.append(now + ControllerTuning.echoLookSeconds) }
        if !feedback.meterSubscribers.isEmpty || feedback.meterObserved() { due.append(feedback.meterClock.due) }
        if let lease = feedback.firstExpiry { due.append(lease) }
        if let flush = session.recorder.nextFlush { due.append(flush) }
        return due.min()
    }

    /// Whether the render thread may have echoes the loop is waiting for
    /// (`EngineLink.awaitsEchoes`), or a player swap is in flight (its released ring comes back
    /// as an echo).
    func awaitsEchoes(now: Double) -> Bool { link.awaitsEchoes(now: now) || player.isSwapping }

    /// The poll timeout (ms) from `now` until `due`, rounded up so that the deadline has passed
    /// when the poll returns; at most `ControllerTuning.longestSleepSeconds`.
    static func pollTimeout(until due: Double?, now: Double) -> Int32 {
        let seconds = min(max((due ?? .infinity) - now, 0), ControllerTuning.longestSleepSeconds)
        return Int32((seconds * 1000).rounded(.up))
    }
}
