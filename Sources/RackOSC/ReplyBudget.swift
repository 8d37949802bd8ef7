/// The bound on what rack sends back to a remote sender, so that rack is never a traffic
/// amplifier for a forged source address:
///
/// - every datagram from a source earns it `bytesPerByteReceived` reply bytes per byte, and
///   every source gets `allowanceBytesPerSecond` on top (so a single `/rack/params` or
///   `/rack/dump`, larger than its request, is always answered); unspent credit is capped;
/// - one datagram gets at most `repliesPerDatagram` reply messages, whatever it asks.
///
/// Pushes to a subscriber at a remote address (feedback and meters) spend the same account
/// (`spendPush`): what one address gets, replies and pushes together, stays within it, however
/// many subscriptions it holds (they are bounded too: leases, places per address).
///
/// Replies over the budget are dropped and counted. Local senders (127.0.0.1, which cannot be
/// forged from outside) are not limited.
struct ReplyBudget {
    /// Reply bytes a source earns per byte it sends.
    static let bytesPerByteReceived = 2
    /// Reply bytes every source may receive per second beyond what it earned.
    static let allowanceBytesPerSecond = 4096.0
    /// Reply messages one datagram may produce (a bundle of 3,274 `/rack/dump` asks for 19,644).
    static let repliesPerDatagram = 64
    /// Unspent credit kept: enough for the largest datagram's earnings plus a second of allowance.
    static let maximumCredit = Double(65_536 * bytesPerByteReceived) + allowanceBytesPerSecond
    /// Sources tracked at once; idle ones (whose credit has refilled anyway) are forgotten first.
    static let maximumSources = 4096

    private struct Account {
        var credit: Double
        var updated: Double
    }

    private var accounts: [UInt32: Account] = [:]
    private var repliesThisDatagram = 0
    /// Replies dropped so far.
    private(set) var dropped = 0
    /// Pushes to remote subscribers dropped so far.
    private(set) var droppedPushes = 0

    /// A datagram of `bytes` arrived from `address` at `now`: it may be answered from here on.
    mutating func received(_ bytes: Int, from address: UInt32, now: Double) {
        repliesThisDatagram = 0
        var a = account(address, now: now)
        a.credit = min(a.credit + Double(bytes * Self.bytesPerByteReceived), Self.maximumCredit)
        accounts[address] = a
    }

    /// Whether a reply of `bytes` may go to `address` at `now`; spends it if so.
    mutating func spend(_ bytes: Int, to address: UInt32, now: Double) -> Bool {
        guard repliesThisDatagram < Self.repliesPerDatagram, take(bytes, from: address, now: now) else {
            dropped += 1
            return false
        }
        repliesThisDatagram += 1
        return true
    }

    /// Whether a push of `bytes` (feedback or meters, which no datagram asked for just now) may
    /// go to a subscriber at `address` at `now`; spends it if so. Not counted against the
    /// datagram being handled.
    mutating func spendPush(_ bytes: Int, to address: UInt32, now: Double) -> Bool {
        guard take(bytes, from: address, now: now) else {
            droppedPushes += 1
            return false
        }
        return true
    }

    /// Spends `bytes` of the credit of `address` at `now`, if it has them.
    private mutating func take(_ bytes: Int, from address: UInt32, now: Double) -> Bool {
        var a = account(address, now: now)
        guard a.credit >= Double(bytes) else { return false }
        a.credit -= Double(bytes)
        accounts[address] = a
        return true
    }

    /// The account of `address`, its allowance added for the time since it was last used.
    private mutating func account(_ address: UInt32, now: Double) -> Account {
        guard var a = accounts[address] else {
            if accounts.count >= Self.maximumSources { forgetIdle(now: now) }
            return Account(credit: Self.allowanceBytesPerSecond, updated: now)
        }
        a.credit = min(a.credit + max(now - a.updated, 0) * Self.allowanceBytesPerSecond, max(a.credit, Self.allowanceBytesPerSecond))
        a.updated = now
        return a
    }

    /// Drops the accounts idle for a second or more (a fresh account is the same as theirs).
    private mutating func forgetIdle(now: Double) {
        accounts = accounts.filter { now - $0.value.updated < 1 }
        if accounts.count >= Self.maximumSources { accounts.removeAll() }
    }
}
