import Foundation
import RackWire

/// A bound UDP socket (non-blocking receive with a timeout). A wait in `receive` also ends
/// when another thread calls `wake()` (a non-blocking pipe polled beside the socket): work queued for
/// the control thread from elsewhere (the WebSocket) is taken up at once, not at the next
/// poll timeout.
public final class UDPSocket: @unchecked Sendable {
    public let fd: Int32
    public let local: OSCEndpoint
    /// The pipe `wake()` writes a byte to (`[0]` is polled and drained by `receive`).
    private let wakePipe: [Int32]

    /// Binds to `host:port` (port 0: the system chooses).
    public init(host: String, port: UInt16) throws {
        guard let ep = OSCEndpoint(host: host, port: port) else { throw POSIXError(.EINVAL) }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let e = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO)
        }
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK); _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wakePipe = ends
        var addr = ep.sockaddr
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else {
            let e = errno
            close(fd)
            for end in ends { close(end) }
            throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO)
        }
        var bound = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        local = OSCEndpoint(address: bound.sin_addr.s_addr, port: UInt16(bigEndian: bound.sin_port))
        // A deep receive buffer so that bursts from controllers are not dropped.
        var size: Int32 = 4 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit {
        close(fd)
        for end in wakePipe { close(end) }
    }

    /// The write end of the wake pipe, for code that cannot call `wake()` (JACK's notification
    /// callbacks and the stop signals' handler, through `rack_wake_install`): a byte written
    /// to it is a `wake()`.
    public var wakeDescriptor: Int32 { wakePipe[1] }

    /// Ends the current (or the next) wait of `receive` at once. Any thread; never blocks.
    public func wake() {
        var one: UInt8 = 1
        _ = write(wakePipe[1], &one, 1)   // a full pipe already wakes: nothing lost
    }

    /// Waits up to `timeoutMilliseconds` for a datagram; returns its size and sender, or nil
    /// (also at once after a `wake()`).
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) -> (Int, OSCEndpoint)? {
        if timeoutMilliseconds != 0 {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakePipe[0], events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, timeoutMilliseconds) > 0 else { return nil }
            if fds[1].revents & Int16(POLLIN) != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                while read(wakePipe[0], &drained, drained.count) > 0 {}
                if fds[0].revents & Int16(POLLIN) == 0 { return nil }
            }
        }
        var from = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let n = withUnsafeMutablePointer(to: &from) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT), $0, &len)
            }
        }
        guard n >= 0 else { return nil }
        return (n, OSCEndpoint(address: from.sin_addr.s_addr, port: UInt16(bigEndian: from.sin_port)))
    }

    /// Sends a datagram (best effort: UDP).
    @discardableResult
    public func send(_ bytes: [UInt8], to endpoint: OSCEndpoint) -> Bool {
        var addr = endpoint.sockaddr
        let n = bytes.withUnsafeBytes { buf in
            withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, buf.baseAddress, buf.count, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        return n == bytes.count
    }
}

/// An IPv4 address or CIDR range for `--allow`.
public struct AddressRange: Sendable, CustomStringConvertible {
    public let network: UInt32   // host order
    public let prefix: Int
    public let text: String

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let host = parts.first, !host.isEmpty, let ep = OSCEndpoint(host: host, port: 0) else { return nil }
        var prefix = 32
        if parts.count == 2 {
            guard let p = Int(parts[1]), (0...32).contains(p) else { return nil }
            prefix = p
        }
        self.prefix = prefix
        network = ep.hostOrderAddress & Self.mask(prefix)
        self.text = text
    }

    static func mask(_ prefix: Int) -> UInt32 { prefix == 0 ? 0 : ~UInt32(0) << UInt32(32 - prefix) }

    public func contains(_ e: OSCEndpoint) -> Bool { e.hostOrderAddress & Self.mask(prefix) == network }
    public var description: String { text }
}
