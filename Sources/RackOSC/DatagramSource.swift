import RackWire

/// Where the control loop's datagrams come from: the UDP socket, or a script in tests.
public protocol DatagramSource: AnyObject {
    /// Waits up to `timeoutMilliseconds` for a datagram; its size and sender, or nil.
    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) -> (Int, OSCEndpoint)?
}

extension UDPSocket: DatagramSource {}
