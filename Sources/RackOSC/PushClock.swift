/// Pushes at a fixed rate on a grid of `period` seconds: a pass of the control loop that wakes
/// late does not move the next push, so the rate holds on a loaded machine (timed from the last
/// push instead, each late wake lengthened the period: 13.3 pushes a second for 15 under a CPU
/// load). A pass more than a period behind the grid starts it afresh from itself rather than
/// sending the missed pushes in a burst.
public struct PushClock: Sendable {
    /// Seconds between pushes.
    public let period: Double
    /// When the next push is due (seconds on the loop's clock); −∞ before the first.
    public private(set) var due = -Double.infinity

    /// A clock of `hertz` pushes a second.
    public init(hertz: Double) { period = 1 / hertz }

    /// Whether a push is due at `now`; when it is, the grid moves on by a period.
    public mutating func take(now: Double) -> Bool {
        guard now >= due else { return false }
        due = now - due < period ? due + period : now + period
        return true
    }

    /// Starts the grid afresh: the next `take` pushes.
    public mutating func restart() { due = -.infinity }
}
