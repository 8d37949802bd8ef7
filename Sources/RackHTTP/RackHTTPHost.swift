import RackWire

/// What the HTTP side needs from the rest of rack, and nothing more: a way to hand over a binary
/// OSC datagram as if it had arrived over UDP. Values flow the other way, pushed by the control
/// side into a `LiveState`. The HTTP side never sees the engine: every change it asks for goes
/// through the control thread's checks and from there through the lock-free queue to the render
/// thread, like any UDP message.
public protocol RackHTTPHost: AnyObject, Sendable {
    /// Queues `datagram` (a binary OSC packet, as on UDP) for the control thread, which applies it
    /// as if `peer` had sent it over UDP. Replies to it are handed to `reply`, on the control
    /// thread: it must not block. Returns false when the control side's inbox is full: the
    /// datagram is not taken, and the caller answers its sender (`WebSocketSession.refusal`).
    func submit(datagram: [UInt8], from peer: HTTPPeer, reply: @escaping @Sendable ([UInt8]) -> Void) -> Bool

    /// The WebSocket of `peer` closed: replies to it have nowhere to go, and what it subscribed
    /// to over OSC ends.
    func disconnected(_ peer: HTTPPeer)
}

/// The remote end of an HTTP or WebSocket connection: the same endpoint type as an OSC sender
/// (so the control side takes it as it is, with the one locality rule, `isLocal`).
public typealias HTTPPeer = OSCEndpoint
