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
        if awaitsEchoes(now: now) || !pendingSyncs.isEmpty { due.append(now + ControllerTuning.echoLookSeconds) }
        if !feedback.meterSubscribers.isEmpty || meterObserved() { due.append(lastMeterTime + 1 / ControllerTuning.meterHz) }
        if let lease = feedback.firstExpiry { due.append(lease) }
        if let flush = recorder.nextFlush { due.append(flush) }
        return due.min()
    }

    /// Whether the render thread may have echoes the loop is waiting for: within
    /// `ControllerTuning.echoWindowSeconds` of the last post or echo, while scheduled events
    /// wait to sound, while the engine is to take up the state (or the driver has just joined or
    /// lost a server the controller has not seen come or go yet), and while a player swap is in
    /// flight (its released ring comes back as an echo).
    func awaitsEchoes(now: Double) -> Bool {
        now < echoesAwaitedUntil || ledger.scheduled > 0 || restartPending || host.isRunning != engineLinked
            || player.isSwapping
    }

    /// Something was posted, or an echo came: more may follow within the echo window.
    func awaitEchoes() { echoesAwaitedUntil = clock() + ControllerTuning.echoWindowSeconds }

    /// The poll timeout (ms) from `now` until `due`, rounded up so that the deadline has passed
    /// when the poll returns; at most `ControllerTuning.longestSleepSeconds`.
    static func pollTimeout(until due: Double?, now: Double) -> Int32 {
        let seconds = min(max((due ?? .infinity) - now, 0), ControllerTuning.longestSleepSeconds)
        return Int32((seconds * 1000).rounded(.up))
    }
}
