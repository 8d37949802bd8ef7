import RackEngine

/// What the control side has in flight to the render thread that the engine bounds or that
/// changes how echoes read: scheduled (timetagged) events posted and not yet echoed, never more
/// than the engine's `scheduledCapacity`, counted in all and by who posted them (their shares,
/// `ScheduleShares`), and `restart`s posted and not yet told back. Every count goes up where
/// the command is posted and down where its notice comes back (an event's, or that of the
/// `clearScheduled` that dropped it), in the order of the queues (both are first-in-first-out),
/// so none ever goes below zero.
struct EngineLedger {
    /// Scheduled events posted and not yet echoed.
    private(set) var scheduled = 0
    /// Of those, by who posted them.
    private(set) var shares = ScheduleShares()
    /// Scheduled preset markers in flight by sender, oldest first: what a clear drops with them.
    private var markers: [EventOwner: [Int]] = [:]
    /// The newest scheduled marker posted.
    private var lastMarker = 0
    /// Clears posted and not yet echoed, in order: the newest scheduled marker posted before each.
    private var clears: [Int] = []
    /// `restart`s posted and not yet echoed: scheduled echoes before them belong to the time
    /// before the outage (the restart dropped the rest and set the count to 0).
    private var restarts = 0

    /// `count` scheduled events were posted by `owner` (nil: the control side itself), which is
    /// `trusted` (127.0.0.1 or `--allow`ed).
    mutating func posted(scheduled count: Int, by owner: EventOwner? = nil, trusted: Bool = true) {
        scheduled += count
        if let owner { shares.add(count, by: owner, trusted: trusted) }
    }

    /// The scheduled event `e` was posted by `owner`: a preset marker is noted.
    mutating func posted(_ e: EngineEvent, by owner: EventOwner) {
        guard e.isScheduled, case let .marker(id) = e.action else { return }
        markers[owner, default: []].append(id)
        lastMarker = id
    }

    /// A `clearScheduled` was posted.
    mutating func postedClear() { clears.append(lastMarker) }

    /// The oldest clear, of `owner`, took effect, dropping `dropped` of its scheduled events:
    /// returns the markers it dropped (those of `owner` posted before it and not applied).
    mutating func cleared(_ dropped: Int, by owner: EventOwner) -> [Int] {
        if restarts == 0 { take(dropped, by: owner) }
        return markersDropped(by: owner)
    }

    /// The markers the oldest clear, of `owner`, dropped (those of `owner` posted before it and
    /// not applied).
    private mutating func markersDropped(by owner: EventOwner) -> [Int] {
        guard !clears.isEmpty else { return [] }
        let mark = clears.removeFirst()
        let mine = markers[owner] ?? []
        let dropped = mine.prefix { $0 <= mark }
        markers[owner] = dropped.count == mine.count ? nil : Array(mine.dropFirst(dropped.count))
        return Array(dropped)
    }

    /// A `restart` was posted: the scheduled events before it are dropped by the engine or
    /// echo before it, and neither counts any more.
    mutating func postedRestart() {
        restarts += 1
        scheduled = 0
        shares = ScheduleShares()
        markers.removeAll()
    }

    /// Takes `e`'s notice into account. False for a scheduled event of the time before an
    /// outage, whose value is not the target (the caller leaves it out).
    mutating func echoed(_ e: AppliedEvent) -> Bool {
        if e.isScheduled {
            if restarts > 0 { return false }
            take(1, by: e.owner)
            if case let .marker(id) = e.action, let owner = e.owner { markers[owner]?.removeAll { $0 == id } }
        }
        assert(scheduled >= 0, "an echo without its post")
        return true
    }

    /// A `restart` took effect.
    mutating func restarted() {
        restarts -= 1
        assert(restarts >= 0, "a restart without its post")
    }

    /// `count` scheduled events of `owner` left the engine (applied or dropped).
    private mutating func take(_ count: Int, by owner: EventOwner?) {
        scheduled -= count
        if let owner { shares.remove(count, by: owner) }
    }

    /// A new engine: nothing is in flight to it.
    mutating func reset() { self = EngineLedger() }
}
