import Foundation
import RackDSP
import RackEngine
import RackFiles
import RackWire

/// The rack's state as a Non Session Manager client saves it in the session directory:
/// every parameter's target, the room, the player's file and position.
public struct SessionState: Sendable, Equatable {
    public var state: RackState
    public var playerPath: String?
    public var playerSeconds: Double

    public init(state: RackState, playerPath: String?, playerSeconds: Double) {
        self.state = state
        self.playerPath = playerPath
        self.playerSeconds = playerSeconds
    }

    /// JSON: the preset fields plus `playerFile` and `playerSeconds`.
    public var json: String {
        var fields = state.encodedFields.map { "  \"\($0.name)\": \($0.json)" }
        if let p = playerPath, let data = try? JSONSerialization.data(withJSONObject: [p], options: [.withoutEscapingSlashes]),
           let s = String(data: data, encoding: .utf8) {
            fields.append("  \"playerFile\": " + String(s.dropFirst().dropLast()))
        }
        fields.append("  \"playerSeconds\": " + formatNumber((playerSeconds * 1000).rounded() / 1000))
        return "{\n" + fields.joined(separator: ",\n") + "\n}\n"
    }

    /// Reads a saved state; unknown or bad fields are an error naming the file.
    public static func load(path: String) throws(RackError) -> SessionState {
        guard let data = FileManager.default.contents(atPath: path) else { throw RackError(.noInput, "cannot read session state '\(path)'") }
        guard let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw RackError(.dataError, "session state '\(path)': not a JSON object")
        }
        // The state codec: a parameter a state saved before it existed left out takes its
        // row's missing-field value; the rack's own saves are clamped, not refused.
        let s: RackState
        do {
            s = try RackState.decode(stateFields(obj), outOfRange: .clamp)
        } catch {
            throw RackError(.dataError, "session state '\(path)': \(error.reason)")
        }
        let seconds = (obj["playerSeconds"] as? NSNumber)?.doubleValue ?? 0
        return SessionState(state: s, playerPath: obj["playerFile"] as? String, playerSeconds: seconds.isFinite ? max(0, seconds) : 0)
    }
}

/// The NSM side of `rack run` (Non Session Manager API 1.2): announce to the server named by
/// NSM_URL, wait for `/nsm/client/open`, and later answer `/nsm/client/save` and report dirty
/// state. Headless: no optional GUI capability.
public final class NSMClient {
    /// Where the server speaks from: NSM_URL's host and port until the server's first message,
    /// then the address that message came from.
    public private(set) var server: OSCEndpoint
    /// Every IPv4 address NSM_URL's host resolves to (network byte order).
    private let serverAddresses: Set<UInt32>
    public internal(set) var sessionPath: String?
    public private(set) var clientID: String?
    public private(set) var displayName: String?
    /// Where the state lives: `<session path>/state.json`.
    public var stateFile: String? { sessionPath.map { $0 + "/state.json" } }
    private(set) var isDirty = false

    public static let capabilities = ":dirty:"

    /// Parses NSM_URL (`osc.udp://HOST:PORT/`).
    public init?(url: String) {
        guard url.hasPrefix("osc.udp://") else { return nil }
        var rest = url.dropFirst("osc.udp://".count)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]) else { return nil }
        let host = String(rest[..<colon])
        let addresses: [UInt32]
        if let literal = OSCEndpoint(host: host, port: port) {
            addresses = [literal.address]
        } else {
            // A host name (nsmd puts the machine's name in NSM_URL): every address it resolves to.
            addresses = Self.resolve(host)
            guard !addresses.isEmpty else { return nil }
        }
        server = OSCEndpoint(address: addresses[0], port: port)
        serverAddresses = Set(addresses)
    }

    /// The IPv4 addresses `host` resolves to, in resolver order.
    private static func resolve(_ host: String) -> [UInt32] {
        var hints = addrinfo(ai_flags: 0, ai_family: AF_INET, ai_socktype: Int32(SOCK_DGRAM.rawValue), ai_protocol: 0,
                             ai_addrlen: 0, ai_addr: nil, ai_canonname: nil, ai_next: nil)
        var res: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &res) == 0 else { return [] }
        defer { freeaddrinfo(res) }
        var found: [UInt32] = []
        var ai = res
        while let info = ai {
            if let sa = info.pointee.ai_addr {
                let a = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
                if !found.contains(a) { found.append(a) }
            }
            ai = info.pointee.ai_next
        }
        return found
    }

    /// True when `from` is the session server, however its address is spelled: one of the
    /// addresses NSM_URL's host resolves to, or, when that host is this machine (a loopback
    /// address, as a stock /etc/hosts maps the host name to 127.0.1.1), any loopback address
    /// (nsmd answers from 127.0.0.1) — on the server's port either way.
    public func isServer(_ from: OSCEndpoint) -> Bool {
        guard from.port == server.port else { return false }
        if from.address == server.address || serverAddresses.contains(from.address) { return true }
        func isLoopback(_ a: UInt32) -> Bool { UInt32(bigEndian: a) >> 24 == 127 }
        return isLoopback(from.address) && serverAddresses.contains(where: isLoopback)
    }

    /// What the server's `/nsm/client/open` asked for, as it came.
    public struct SessionOpen: Sendable, Equatable {
        public let sessionPath: String
        public let displayName: String
        public let clientID: String

        public init(sessionPath: String, displayName: String, clientID: String) {
            self.sessionPath = sessionPath
            self.displayName = displayName
            self.clientID = clientID
        }

        /// Why rack cannot take this open (one line), nil when it can: the session path must be
        /// absolute (saves go there, never relative to the working directory), and the client
        /// id is the JACK client name, held to `ClientName`'s rule as `--name` is.
        public var problem: String? {
            if !sessionPath.hasPrefix("/") { return "session path '\(sessionPath)' is not absolute" }
            if let p = ClientName.problem(clientID) { return "client id '\(clientID)' \(p)" }
            return nil
        }
    }

    /// NSM's error code for what rack cannot do (`ERR_GENERAL`).
    static let generalError: Int32 = -1

    /// Announces and waits (up to `timeout` seconds) for the server to open a session: the
    /// first open with its three strings, nil if none came (the server is the address it came
    /// from from then on).
    public func announce(socket: UDPSocket, executable: String, timeout: Double = 10) -> SessionOpen? {
        let msg = OSCMessage("/nsm/server/announce", [
            .string("rack"), .string(Self.capabilities), .string(executable), .int(1), .int(2), .int(Int32(getpid())),
        ])
        socket.send(msg.encoded(), to: server)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let got = buffer.withUnsafeMutableBytes { socket.receive(into: $0, timeoutMilliseconds: 100) }
            guard let (n, from) = got, isServer(from) else { continue }
            guard let messages = try? buffer.withUnsafeBytes({ try OSCPacket.decode(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) else { continue }
            for (m, _) in messages where m.address == OSCCommandDeclaration.sessionOpen.address {
                guard m.arguments.count >= 3, let path = m.arguments[0].string, let name = m.arguments[1].string,
                      let id = m.arguments[2].string else { continue }
                server = from
                return SessionOpen(sessionPath: path, displayName: name, clientID: id)
            }
        }
        return nil
    }

    /// Takes `open` up: checks it (`SessionOpen.problem`: 65), then reads the state saved in
    /// the session, if any. The caller answers the server: `/error` with what this throws.
    public func take(_ open: SessionOpen) throws(RackError) -> SessionState? {
        if let problem = open.problem { throw RackError(.dataError, "the session manager's open: \(problem)") }
        sessionPath = open.sessionPath
        displayName = open.displayName
        clientID = open.clientID
        guard let file = stateFile else { return nil }
        var st = stat()
        guard stat(file, &st) == 0 else { return nil }   // a new session: nothing saved yet
        guard st.st_mode & S_IFMT == S_IFREG else { throw RackError(.noInput, "session state '\(file)' is not a regular file") }
        return try SessionState.load(path: file)
    }

    /// Tells the server the open went well (or not, and why).
    public func replyOpen(socket: Replier, error: String?) {
        if let error {
            socket.send(OSCMessage(OSCCommandDeclaration.sessionError.address, [.string(OSCCommandDeclaration.sessionOpen.address), .int(Self.generalError), .string(error)]).encoded(), to: server)
        } else {
            socket.send(OSCMessage(OSCCommandDeclaration.sessionReply.address, [.string(OSCCommandDeclaration.sessionOpen.address), .string("rack state loaded")]).encoded(), to: server)
        }
    }

    /// Saves `state` in the session directory and answers the server. Only an absolute session
    /// path is saved to (one the open was checked for); anything else is answered with `/error`.
    public func save(_ state: SessionState, socket: Replier) {
        guard let dir = sessionPath, dir.hasPrefix("/"), let file = stateFile else {
            return refuseSave("no session with an absolute path is open", socket: socket)
        }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try atomicWrite(Array(state.json.utf8), to: file, directory: dir)
            socket.send(OSCMessage(OSCCommandDeclaration.sessionReply.address, [.string(OSCCommandDeclaration.sessionSave.address), .string("saved")]).encoded(), to: server)
            isDirty = false
            socket.send(OSCMessage("/nsm/client/is_clean").encoded(), to: server)
        } catch {
            refuseSave("\(error)", socket: socket)
        }
    }

    /// Answers a save that was not done: `/error /nsm/client/save -1 REASON`.
    public func refuseSave(_ reason: String, socket: Replier) {
        socket.send(OSCMessage(OSCCommandDeclaration.sessionError.address, [.string(OSCCommandDeclaration.sessionSave.address), .int(Self.generalError), .string(reason)]).encoded(), to: server)
    }

    /// Tells the server, once, that there are unsaved changes.
    public func markDirty(socket: Replier) {
        guard !isDirty else { return }
        isDirty = true
        socket.send(OSCMessage("/nsm/client/is_dirty").encoded(), to: server)
    }
}
