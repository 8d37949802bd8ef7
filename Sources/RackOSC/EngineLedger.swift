import RackEngine

/// What the control side has in flight to the render thread that the engine bounds or that
/// changes how echoes read: scheduled (timetagged) events posted and not yet echoed, never more
/// than the engine's `scheduledCapacity`, and `restart`s posted and not yet echoed. Every count
/// goes up where the event is posted and down where its echo comes back, in the order of the
/// queues (both are first-in-first-out), so neither ever goes below zero.
struct EngineLedger {
    /// Scheduled events posted and not yet echoed.
    private(set) var scheduled = 0
    /// `restart`s posted and not yet echoed: scheduled echoes before them belong to the time
    /// before the outage (the restart dropped the rest and set the count to 0).
    private var restarts = 0

    /// `count` scheduled events were posted.
    mutating func posted(scheduled count: Int) { scheduled += count }

    /// A `restart` was posted: the scheduled events before it are dropped by the engine or
    /// echo before it, and neither counts any more.
    mutating func postedRestart() {
        restarts += 1
        scheduled = 0
    }

    /// Takes `e`'s echo into account. False for a scheduled echo of the time before an outage,
    /// whose value is not the target (the caller leaves it out).
    mutating func echoed(_ e: AppliedEvent) -> Bool {
        if e.isScheduled {
            if restarts > 0 { return false }
            scheduled -= 1
        }
        assert(scheduled >= 0, "an echo without its post")
        return true
    }

    /// A `restart` took effect.
    mutating func restarted() {
        restarts -= 1
        assert(restarts >= 0, "a restart without its post")
    }

    /// A new engine: nothing is in flight to it.
    mutating func reset() { self = EngineLedger() }
}
