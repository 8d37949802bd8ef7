import HummingbirdWebSocket
import NIOWebSocket

/// RFC 6455 §5.1: a server closes the connection, status 1002 (protocol error), on a client
/// frame that is not masked. The WebSocket library does not check it; this extension, applied
/// to every connection without negotiation, sees each data frame (text, binary, continuation)
/// before the library collates it. (Control frames do not pass through extensions; they carry
/// nothing rack acts on.)
struct MaskedClientFrames: WebSocketExtension {
    let name = "rack-masked-client-frames"

    /// The factory for `WebSocketServerConfiguration.extensions`.
    static let factory = WebSocketExtensionFactory.nonNegotiatedExtension { MaskedClientFrames() }

    func processReceivedFrame(_ frame: WebSocketFrame, context: WebSocketExtensionContext) async throws -> WebSocketFrame {
        // The library has no public error for "protocol error"; it answers this NIO protocol
        // error (a control-frame violation) with close status 1002, which is what RFC 6455 asks.
        guard frame.maskKey != nil else { throw NIOWebSocketError.fragmentedControlFrame }
        return frame
    }

    func processFrameToSend(_ frame: WebSocketFrame, context: WebSocketExtensionContext) async throws -> WebSocketFrame {
        frame
    }

    func shutdown() async {}
}
