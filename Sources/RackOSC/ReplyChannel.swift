import Foundation
import RackEngine
import RackWire

/// What goes back out of the controller, and who may have it: every reply and `/rack/error`
/// goes through the `Replier` (the socket, or an in-memory outbox in tests) within the budgets
/// (`ErrorBudget`, `ReplyBudget`); never to the rack's own socket. It also keeps the allow list
/// and the `ExposurePolicy`, the control loop's clock and its log.
final class ReplyChannel {
    /// Where replies, feedback and meters go: the socket (through the HTTP bridge), so they
    /// leave from the rack's port.
    let replier: Replier
    /// The senders obeyed (`--allow`; empty: any).
    let allow: [AddressRange]
    /// What remote senders may have (leases, media directories).
    let policy: ExposurePolicy
    /// The endpoints of the rack's own OSC socket, which it never sends to. Nil when there is
    /// no socket (tests).
    var ownEndpoints: OwnEndpoints?
    private(set) var errorBudget = ErrorBudget()
    private(set) var replyBudget = ReplyBudget()
    /// Seconds, monotonic (the budgets' windows and the loop's timers); tests set their own.
    var clock: () -> Double = monotonicSeconds
    /// Lines for the user.
    var log: (String) -> Void = { _ in }
    /// Datagrams handed to the controller.
    var packetsReceived = 0

    init(replier: Replier, allow: [AddressRange], policy: ExposurePolicy) {
        self.replier = replier
        self.allow = allow
        self.policy = policy
    }

    /// Seconds on `clock`.
    var now: Double { clock() }

    /// Whether a datagram from `from` is obeyed: any sender without an allow list, else one
    /// it names (the session manager is let in by the controller).
    func allows(_ from: OSCEndpoint) -> Bool { allow.isEmpty || allow.contains { $0.contains(from) } }

    /// A datagram of `bytes` from `from` is obeyed: it earns its sender reply bytes.
    func received(_ bytes: Int, from: OSCEndpoint) {
        replyBudget.received(bytes, from: from.address, now: now)
    }

    /// Sends a reply, within the reply budget of a remote sender; never to the rack's own socket
    /// (a datagram forged to come from it would otherwise start a loop).
    func reply(_ m: OSCMessage, to: OSCEndpoint) {
        guard !isOwn(to) else { return }
        let bytes = m.encoded()
        guard to.isLocal || replyBudget.spend(bytes.count, to: to.address, now: now) else { return }
        replier.send(bytes, to: to)
    }

    /// Whether a push (feedback, meters) of `bytes` may go to `to` now.
    func admitsPush(to: OSCEndpoint, bytes: Int) -> Bool {
        trusts(to) || replyBudget.spendPush(bytes, to: to.address, now: now)
    }

    /// Whether `e` is this machine's user (127.0.0.1) or a peer `--allow` names: the budgets keep
    /// a reserve for them that remote senders cannot take.
    func trusts(_ e: OSCEndpoint) -> Bool {
        e.isLocal || allow.contains { $0.contains(e) }
    }

    /// Whether a datagram sent to `target` reaches the rack's own OSC socket.
    func isOwn(_ target: OSCEndpoint) -> Bool { ownEndpoints?.reaches(target, now: now) == true }

    /// `/rack/error ADDRESS REASON`, within the error budget.
    func replyError(to: OSCEndpoint, address: String, reason: String) {
        guard errorBudget.spend(to: to.address, trusted: trusts(to), now: now) else { return }
        reply(OSCMessage(OSCReplyAddress.error, [.string(address), .string(reason)]), to: to)
    }
}

extension ReplyChannel {
    /// An error reply for `request` that does not refuse it (a value clamped, then applied).
    func report(_ request: Request, _ reason: String) {
        replyError(to: request.from, address: request.address, reason: reason)
    }
}
