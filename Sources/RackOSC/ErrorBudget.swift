/// The rate limit on `/rack/error` replies: at most `perSecond` in each window of a second
/// (the window starts at the first error after the last one ended), so that a flood of bad
/// packets is never amplified into a flood of replies. Replies over the budget are dropped
/// and counted.
struct ErrorBudget {
    let perSecond: Int
    private var remaining: Int
    private var windowStart = 0.0
    /// Error replies dropped so far.
    private(set) var dropped = 0

    init(perSecond: Int = ControllerTuning.errorRepliesPerSecond) {
        self.perSecond = perSecond
        remaining = perSecond
    }

    /// Whether an error reply may go out at `now` (seconds, monotonic); spends one if so.
    mutating func spend(now: Double) -> Bool {
        if now - windowStart >= 1 {
            windowStart = now
            remaining = perSecond
        }
        guard remaining > 0 else {
            dropped += 1
            return false
        }
        remaining -= 1
        return true
    }
}
