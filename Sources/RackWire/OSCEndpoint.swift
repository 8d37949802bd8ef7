import Foundation

/// An IPv4 endpoint: a UDP sender or receiver, or the remote end of an HTTP or WebSocket
/// connection (rack binds IPv4 addresses only).
public struct OSCEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// How datagrams reach an endpoint. A WebSocket's port is its TCP source port, which may be
    /// the very number a UDP controller on the same address uses: the two are different
    /// endpoints, and one never gets the other's replies or subscriptions.
    public enum Transport: Sendable, Hashable {
        case udp
        /// The WebSocket of an HTTP connection (OSC as binary messages).
        case webSocket
    }

    /// Address in network byte order, as in `sockaddr_in`.
    public var address: UInt32
    /// Port in host byte order.
    public var port: UInt16
    public var transport: Transport

    public init(address: UInt32, port: UInt16, transport: Transport = .udp) {
        self.address = address
        self.port = port
        self.transport = transport
    }

    /// Parses a dotted IPv4 address or "localhost".
    public init?(host: String, port: UInt16) {
        var a = in_addr()
        let h = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, h, &a) == 1 else { return nil }
        self.init(address: a.s_addr, port: port)
    }

    /// Parses "HOST:PORT".
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        self.init(host: String(text[..<colon]), port: port)
    }

    /// The address in host byte order.
    public var hostOrderAddress: UInt32 { UInt32(bigEndian: address) }

    public var host: String {
        var a = in_addr(s_addr: address)
        var buf = [CChar](repeating: 0, count: 16)
        inet_ntop(AF_INET, &a, &buf, 16)
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { transport == .udp ? "\(host):\(port)" : "WebSocket \(host):\(port)" }

    /// The one address rack treats as local, in network byte order (127.0.0.1).
    public static let localAddress = UInt32(0x7f00_0001).bigEndian

    /// True for 127.0.0.1: this machine's own user. Every other address, other loopback
    /// addresses (127.0.0.2, …) included, is remote (see `ExposurePolicy`).
    public var isLocal: Bool { address == Self.localAddress }

    /// The endpoint as a socket address (its address and port: the transport is the socket's).
    public var sockaddr: sockaddr_in {
        var s = sockaddr_in()
        s.sin_family = sa_family_t(AF_INET)
        s.sin_port = port.bigEndian
        s.sin_addr = in_addr(s_addr: address)
        return s
    }
}
