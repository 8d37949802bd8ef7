import RackWire

/// Where the controller's outgoing datagrams go: replies, `/rack/error`, feedback to
/// subscribers, meters and the session manager's messages. The UDP socket in production (so
/// every reply leaves from the rack's own port); an in-memory outbox in tests, which hand
/// datagrams to the controller directly and read what it sent (swift-nio's `EmbeddedChannel`
/// idea: no socket, no waiting).
public protocol Replier: AnyObject {
    /// Sends one datagram to `endpoint`, best effort (UDP); false when it did not go out whole.
    @discardableResult
    func send(_ datagram: [UInt8], to endpoint: OSCEndpoint) -> Bool
}

extension Replier {
    /// Sends one message, encoded for the wire.
    func send(_ message: OSCMessage, to endpoint: OSCEndpoint) {
        send(message.encoded(), to: endpoint)
    }
}

extension UDPSocket: Replier {}
