import RackWire

/// `/rack/subscribe`, `/rack/unsubscribe`, `/rack/meter`: who gets `Feedback`.
extension RackController {
    static let subscriptionCommands = [
        OSCCommand(.subscribe) { c, r throws(Reason) in try c.subscribe(r) },
        OSCCommand(.unsubscribe) { c, r throws(Reason) in try c.unsubscribe(r) },
        OSCCommand(.meter) { c, r throws(Reason) in try c.subscribeMeters(r) },
    ]

    /// `/rack/subscribe [port]`: applied changes go to the sender (on `port`, if given).
    func subscribe(_ r: Request) throws(Reason) {
        let target = try pushTarget(r)
        try feedback.subscribe(target, trusted: replies.trusts(target), linked: target != r.from, expires: leaseEnd(for: target))
    }

    /// `/rack/unsubscribe [port]`: neither changes nor meters any more.
    func unsubscribe(_ r: Request) throws(Reason) {
        feedback.unsubscribe(try Self.replyTarget(r))
    }

    /// `/rack/meter [port]`: the meters go to the sender (on `port`, if given).
    func subscribeMeters(_ r: Request) throws(Reason) {
        let target = try pushTarget(r)
        try feedback.subscribeMeters(target, trusted: replies.trusts(target), expires: leaseEnd(for: target, seconds: replies.policy.meterLeaseSeconds))
    }

    /// When a subscription of `target` made now lapses: never for a local one, after `seconds`
    /// (the policy's lease) for a remote one (renewed by subscribing again).
    func leaseEnd(for target: OSCEndpoint, seconds: Double? = nil) -> Double {
        target.isLocal ? .infinity : replies.now + (seconds ?? replies.policy.leaseSeconds)
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
    func pushTarget(_ r: Request) throws(Reason) -> OSCEndpoint {
        let target = try Self.replyTarget(r)
        guard !replies.isOwn(target) else { throw Reason(Self.ownTargetReason(target)) }
        return target
    }

    /// The refusal of a subscription to the rack's own socket.
    static func ownTargetReason(_ target: OSCEndpoint) -> String {
        "\(target) is this rack's own OSC port: its pushes would come back to it for ever"
    }
}
