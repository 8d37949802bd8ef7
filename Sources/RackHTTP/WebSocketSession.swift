import RackEngine

import Foundation
import HummingbirdWebSocket
import NIOCore
import RackWire

/// One WebSocket connection: OSCQuery's `LISTEN`/`IGNORE` commands (JSON text frames), value
/// pushes for what it listens to (OSC binary frames), and binary OSC frames applied like UDP OSC,
/// their replies sent back on the same socket. A client that sends no message for
/// `HTTPLimits.webSocketIdleSeconds` is closed (1001), so forgotten sockets give their places back.
struct WebSocketSession: Sendable {
    let state: LiveState
    let host: any RackHTTPHost
    let peer: HTTPPeer
    /// Closes the connection outright: after the close frame to a client quiet too long (a
    /// client that never answers the close frame cannot keep it).
    let closeConnection: @Sendable () -> Void

    /// Serves the connection until the client closes it. Pushes and replies go through a bounded
    /// queue (oldest dropped), written by a task of their own: neither rack's control thread nor
    /// other clients ever wait for this socket.
    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let (pushes, queue) = PushQueue.make()
        let id = state.addListener(queue)
        let idle = IdleWatch()
        defer {
            state.removeListener(id)
            state.studio.removeListener(id)
            queue.finish()
            host.disconnected(peer)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await item in pushes {
                    switch item {
                    case let .binary(bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                    case let .text(text): try await outbound.write(.text(text))
                    }
                }
            }
            group.addTask { [closeConnection] in
                while let wait = idle.remaining() { try await Task.sleep(for: wait) }
                try? await outbound.close(.goingAway, reason: "no message for \(HTTPLimits.webSocketIdleSeconds) s")
                closeConnection()
            }
            for try await message in inbound.messages(maxSize: HTTPLimits.maximumWebSocketMessageBytes) {
                idle.heard()
                switch message {
                case var .binary(buffer):
                    submit(buffer.readBytes(length: buffer.readableBytes) ?? [], queue: queue)
                case let .text(text):
                    command(text, id: id, queue: queue)
                }
            }
            queue.finish()
            group.cancelAll()
        }
    }

    /// A binary frame: handed to the control thread as if it had come over UDP, its replies
    /// queued for this socket. When the control side's inbox is full the datagram is not taken,
    /// and the sender is told so at once: `/rack/error ADDRESS "busy: …"` on this socket.
    func submit(_ datagram: [UInt8], queue: AsyncStream<Outgoing>.Continuation) {
        let taken = host.submit(datagram: datagram, from: peer) { reply in queue.yield(.binary(reply)) }
        if !taken { queue.yield(.binary(Self.refusal(of: datagram).encoded())) }
    }

    /// The answer to a datagram the full inbox refused: `/rack/error`, with the address of its
    /// first message (empty when it does not decode, as the controller answers such a datagram).
    static func refusal(of datagram: [UInt8]) -> OSCMessage {
        let messages = try? datagram.withUnsafeBytes { bytes in try OSCPacket.decode(bytes) }
        return OSCMessage(OSCReplyAddress.error, [
            .string(messages?.first?.0.address ?? ""),
            .string("busy: \(HTTPLimits.controlInboxLength) messages from WebSocket clients are already waiting for the control thread"),
        ])
    }

    /// `{"COMMAND": "LISTEN" | "IGNORE", "DATA": "/path"}`. A LISTEN is answered at once with the
    /// node's current value, so a client never misses a change made between its `GET` and its
    /// `LISTEN`. Anything else is ignored (as the proposal asks of unknown commands).
    func command(_ text: String, id: Int, queue: AsyncStream<Outgoing>.Continuation) {
        guard let parsed = Self.parse(text) else { return }
        if parsed.path == StudioDirectory.path, ["LISTEN", "IGNORE"].contains(parsed.command) {
            state.studio.setListening(id, queue: queue, parsed.command == "LISTEN")
            return
        }
        let snapshot = state.snapshot()
        guard let path = Self.listenable(parsed.path, presetNames: snapshot.presetNames) else { return }
        switch parsed.command {
        case "LISTEN":
            state.setListening(id, path: path, true)
            if let v = snapshot.values[path] {
                queue.yield(.binary(OSCMessage(path, v.map(\.osc)).encoded()))
            }
        case "IGNORE":
            state.setListening(id, path: path, false)
        default:
            break
        }
    }

    /// `path` when a client may LISTEN to it: a node of the namespace, a continuous
    /// parameter's `/norm` address (its 0…1 control position, published beside its value), or
    /// a page picture's version (`/ui/picture/<name>`, pushed when a new drawing is ready).
    static func listenable(_ path: String, presetNames: [String]) -> String? {
        if let address = ParameterAddress(parsing: path), address.isNormalized { return address.path }
        if let picture = PagePictures.all.first(where: { $0.versionAddress == path }) { return picture.versionAddress }
        guard let node = OSCQueryNamespace.root(presetNames: presetNames).find(path), node.path == path else { return nil }
        return node.path
    }

    /// The command and path of a JSON command, nil when it is not one.
    static func parse(_ text: String) -> (command: String, path: String)? {
        guard text.utf8.count <= 4096,
              let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let command = object["COMMAND"] as? String, let path = object["DATA"] as? String
        else { return nil }
        return (command, path)
    }
}
