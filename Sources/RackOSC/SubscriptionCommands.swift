/// `/rack/subscribe`, `/rack/unsubscribe`, `/rack/meter`: who gets `Feedback`.
extension RackController {
    /// `/rack/subscribe [port]`: applied changes go to the sender (on `port`, if given).
    func subscribe(_ r: Request) throws(Reason) {
        try feedback.subscribe(Self.replyTarget(r))
    }

    /// `/rack/unsubscribe [port]`: neither changes nor meters any more.
    func unsubscribe(_ r: Request) throws(Reason) {
        feedback.unsubscribe(try Self.replyTarget(r))
    }

    /// `/rack/meter [port]`: the meters go to the sender (on `port`, if given).
    func subscribeMeters(_ r: Request) throws(Reason) {
        try feedback.subscribeMeters(Self.replyTarget(r))
    }

    /// Where a subscription sends to: the sender, on the port given as the optional argument.
    static func replyTarget(_ r: Request) throws(Reason) -> OSCEndpoint {
        var target = r.from
        if r.arguments.count == 1 {
            guard let p = r.arguments[0].number, p >= 1, p <= 65535, p == p.rounded() else {
                throw Reason("port must be an integer 1…65535")
            }
            target.port = UInt16(p)
        } else if !r.arguments.isEmpty {
            throw Reason("expects an optional integer port")
        }
        return target
    }
}
