/// The rate limit on `/rack/error` replies, so that a flood of bad packets is never amplified
/// into a flood of replies, and no sender starves another of its errors. In each window of a
/// second (the window starts at the first error after the last one ended):
///
/// - at most `perSecond` replies in all;
/// - at most `perRemoteAddress` to one remote address (neither 127.0.0.1 nor `--allow`ed);
/// - remote addresses together at most `perSecond - trustedReserve`: the reserve is for this
///   machine's user and `--allow`ed peers, which remote senders cannot take.
///
/// Replies over the budget are dropped and counted.
struct ErrorBudget {
    /// How a second's replies are shared (`FairShare`, the rule subscriber places follow too).
    let share: FairShare
    private var spent = 0
    private var spentRemote = 0
    /// Replies to each remote address in this window (at most `perSecond` of them: cleared with it).
    private var spentByAddress: [UInt32: Int] = [:]
    private var windowStart = -Double.infinity
    /// Error replies dropped so far.
    private(set) var dropped = 0

    init(perSecond: Int = ControllerTuning.errorRepliesPerSecond,
         trustedReserve: Int = ControllerTuning.errorRepliesTrustedReserve,
         perRemoteAddress: Int = ControllerTuning.errorRepliesPerRemoteAddress) {
        share = FairShare(capacity: perSecond, trustedReserve: trustedReserve, perRemoteAddress: perRemoteAddress)
    }

    /// Whether one more may go out at `now` when nobody is remote (the limit on MIDI's stderr
    /// lines: `perSecond` alone); spends one if so.
    mutating func spend(now: Double) -> Bool { spend(to: 0, trusted: true, now: now) }

    /// Whether an error reply may go to `address` (trusted: 127.0.0.1 or `--allow`ed) at `now`
    /// (seconds, monotonic); spends one if so.
    mutating func spend(to address: UInt32, trusted: Bool, now: Double) -> Bool {
        if now - windowStart >= 1 {
            windowStart = now
            spent = 0
            spentRemote = 0
            spentByAddress.removeAll(keepingCapacity: true)
        }
        let mine = spentByAddress[address, default: 0]
        let refusal = share.refusal(claiming: 1, held: spent, heldRemotely: spentRemote, heldByAddress: mine, trusted: trusted)
        guard refusal == nil else {
            dropped += 1
            return false
        }
        spent += 1
        if !trusted {
            spentRemote += 1
            spentByAddress[address] = mine + 1
        }
        return true
    }
}
