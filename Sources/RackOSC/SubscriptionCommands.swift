import RackWire

/// `/rack/subscribe`, `/rack/unsubscribe`, `/rack/meter`: who gets `Feedback`. Each handler
/// gets the `Feedback` and the context.
enum SubscriptionCommands {
    static let all = [
        OSCCommand(.subscribe, in: \.subscriptions) { f, c, r throws(Reason) in try subscribe(f, c, r) },
        OSCCommand(.unsubscribe, in: \.subscriptions) { f, _, r throws(Reason) in f.unsubscribe(try replyTarget(r)) },
        OSCCommand(.meter, in: \.subscriptions) { f, c, r throws(Reason) in try subscribeMeters(f, c, r) },
    ]

    /// `/rack/subscribe [port]`: applied changes go to the sender (on `port`, if given).
    static func subscribe(_ f: Feedback, _ c: CommandContext, _ r: Request) throws(Reason) {
        let target = try pushTarget(c, r)
        try f.subscribe(target, trusted: c.trusts(target), linked: target != r.from, expires: leaseEnd(c, for: target))
    }

    /// `/rack/meter [port]`: the meters go to the sender (on `port`, if given).
    static func subscribeMeters(_ f: Feedback, _ c: CommandContext, _ r: Request) throws(Reason) {
        let target = try pushTarget(c, r)
        try f.subscribeMeters(target, trusted: c.trusts(target), expires: leaseEnd(c, for: target, seconds: c.policy.meterLeaseSeconds))
    }

    /// When a subscription of `target` made now lapses: never for a local one, after `seconds`
    /// (the policy's lease) for a remote one (renewed by subscribing again).
    static func leaseEnd(_ c: CommandContext, for target: OSCEndpoint, seconds: Double? = nil) -> Double {
        target.isLocal ? .infinity : c.now + (seconds ?? c.policy.leaseSeconds)
    }

    /// Where a subscription sends to: the sender, or UDP on the sender's address at the port
    /// given as the optional argument (the signature took at most one number), also when the
    /// sender is a WebSocket.
    static func replyTarget(_ r: Request) throws(Reason) -> OSCEndpoint {
        var target = r.from
        if let p = r.arguments.first?.number {
            guard p >= 1, p <= 65535, p == p.rounded() else { throw Reason("port must be an integer 1…65535") }
            target.port = UInt16(p)
            target.transport = .udp
        }
        return target
    }

    /// Where a new subscription or meter subscription sends to (`replyTarget`): never the
    /// rack's own OSC socket, where every push would come back and be applied again.
    static func pushTarget(_ c: CommandContext, _ r: Request) throws(Reason) -> OSCEndpoint {
        let target = try replyTarget(r)
        guard !c.isOwn(target) else { throw Reason(ownTargetReason(target)) }
        return target
    }

    /// The refusal of a subscription to the rack's own socket.
    static func ownTargetReason(_ target: OSCEndpoint) -> String {
        "\(target) is this rack's own OSC port: its pushes would come back to it for ever"
    }
}
