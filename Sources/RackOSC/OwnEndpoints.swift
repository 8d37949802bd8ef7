import Foundation
import RackWire

/// The endpoints a datagram sent to reaches the rack's own OSC socket. The rack never sends
/// there: a subscription or meter target among them would loop for ever (every change it
/// pushes comes back as a message that applies it again, and a meter message comes back as a
/// malformed `/rack/meter` whose error comes back too).
///
/// Which addresses reach the socket depends on how it was bound (Linux): a socket bound to one
/// address gets datagrams sent to that address only (127.0.0.2 does not reach 127.0.0.1); one
/// bound to 0.0.0.0 gets those sent to any address of this machine, all of 127/8 included.
/// 0.0.0.0 as a destination is delivered to this machine, so it reaches either.
public final class OwnEndpoints {
    /// The OSC socket as bound (address 0: every address of this machine).
    public let socket: OSCEndpoint
    /// This machine's interface addresses, network byte order (looked up again when older than
    /// `lookupSeconds`: an address may come and go while rack runs).
    private let interfaceAddresses: () -> [UInt32]
    private var known: [UInt32] = []
    private var lookedUpAt = -Double.infinity
    /// How long, in seconds, a look-up of the interface addresses is used.
    static let lookupSeconds = 1.0

    /// The endpoints of `socket` (as bound: `UDPSocket.local`); `interfaceAddresses` lists this
    /// machine's addresses (tests give their own).
    public init(socket: OSCEndpoint, interfaceAddresses: @escaping () -> [UInt32] = OwnEndpoints.interfaceAddresses) {
        self.socket = socket
        self.interfaceAddresses = interfaceAddresses
    }

    /// Whether a UDP datagram sent to `target` at `now` (seconds, monotonic) reaches the socket.
    func reaches(_ target: OSCEndpoint, now: Double) -> Bool {
        guard target.transport == .udp, target.port == socket.port else { return false }
        if target.address == 0 { return true }
        if socket.address != 0 { return target.address == socket.address }
        if target.hostOrderAddress >> 24 == 127 { return true }
        if now - lookedUpAt >= Self.lookupSeconds {
            known = interfaceAddresses()
            lookedUpAt = now
        }
        return known.contains(target.address)
    }

    /// The IPv4 addresses of this machine's interfaces (`getifaddrs(3)`), network byte order.
    public static func interfaceAddresses() -> [UInt32] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var found: [UInt32] = []
        var next = list
        while let entry = next {
            if let a = entry.pointee.ifa_addr, a.pointee.sa_family == sa_family_t(AF_INET) {
                found.append(a.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr })
            }
            next = entry.pointee.ifa_next
        }
        return found
    }
}
