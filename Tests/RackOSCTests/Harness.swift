import Foundation
import XCTest
import RackTestSupport
import RackDSP
import RackEngine
import RackFiles
import RackIO
@testable import RackOSC
import RackWire

/// The in-memory end of the controller: every datagram it sent, decoded as the wire would
/// carry it. No socket, no waiting (swift-nio's `EmbeddedChannel` idea).
final class Outbox: Replier {
    private(set) var sent: [(message: OSCMessage, to: OSCEndpoint)] = []

    func send(_ datagram: [UInt8], to endpoint: OSCEndpoint) -> Bool {
        let decoded = datagram.withUnsafeBytes { try? OSCPacket.decode($0) }
        guard let decoded else {
            XCTFail("the controller sent an undecodable datagram of \(datagram.count) bytes")
            return false
        }
        sent += decoded.map { ($0.0, endpoint) }
        return true
    }

    /// The messages sent to `endpoint` since the last take, oldest first; forgets them.
    func take(for endpoint: OSCEndpoint) -> [OSCMessage] {
        let mine = sent.filter { $0.to == endpoint }.map(\.message)
        sent.removeAll { $0.to == endpoint }
        return mine
    }

    /// Forgets everything sent.
    func clear() { sent.removeAll() }
}

/// A host without JACK: the test renders the engine itself.
final class FakeHost: RackHost {
    var engine: Engine?
    init(engine: Engine) { self.engine = engine }
    var bufferSize: Int { 256 }
    var xruns: Int { 3 }
    var dspLoadPercent: Double { 12.5 }
    /// False while the test plays a server that went away (nothing renders the engine then).
    var isRunning = true
    var stateName: String { isRunning ? "running" : "disconnected" }
    /// How far the server's clock moves on between two mappings (0: it stands still).
    var samplesPerMapping: Int64 = 0
    private var mappings: Int64 = 0
    func engineSample(secondsFromNow: Double) -> Int64? {
        guard isRunning else { return nil }
        mappings += 1
        return (engine?.sampleTime ?? 0) + Int64(secondsFromNow * 48_000) + mappings * samplesPerMapping
    }
    func takeCycleStats() -> CycleStats { CycleStats() }
}

/// A controller fed by hand, an outbox for what it sends, and an engine rendered by hand.
final class Rig {
    let engine: Engine
    let host: FakeHost
    let outbox = Outbox()
    let controller: RackController
    let userDir: String
    /// The sender of `send` (any endpoint: nothing is bound).
    let client = OSCEndpoint(host: "127.0.0.1", port: 9000)!
    /// The controller's clock, moved by the test.
    var now = 1000.0
    /// The wall-clock moment the controller measures timetags from: fixed, so that a test
    /// descheduled under load moves no timetag (`timeTag(in:)`).
    let timeTagNow = OSCTimeTag.now()
    var left = [Float](repeating: 0, count: 256), right = [Float](repeating: 0, count: 256)
    /// What both inputs hear in every block `render` renders (256 frames); silence when nil.
    var input: [Float]?

    init(queueCapacity: Int = 4096, allow: [AddressRange] = [], recordPath: String? = nil,
         policy: ExposurePolicy = ExposurePolicy(), environment: [String: String]? = nil) {
        engine = Engine(sampleRate: 48_000, maxFrames: 256, queueCapacity: queueCapacity)
        host = FakeHost(engine: engine)
        // With `environment`, the user preset directory is the one it names (maybe none).
        let presetDirectory: String? = environment.map { PresetStore.defaultUserDirectory(environment: $0) }
            ?? (NSTemporaryDirectory() + "rack-osc-" + UUID().uuidString + "/presets")
        userDir = presetDirectory ?? ""
        let factory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Presets").path
        controller = RackController(replier: outbox, host: host, presets: PresetStore(factoryDirectory: factory, userDirectory: presetDirectory),
                                    initial: RackState(), allow: allow, recordPath: recordPath, policy: policy)
        controller.clock = { [unowned self] in now }
        controller.timeTagNow = { [timeTagNow] in timeTagNow }
    }

    /// Hands raw bytes to the controller as a datagram from `from` (the client by default),
    /// then renders a block.
    func send(_ bytes: [UInt8], from: OSCEndpoint? = nil) {
        bytes.withUnsafeBytes { controller.handle(datagram: $0, from: from ?? client) }
        render()
    }

    func send(_ address: String, _ args: [OSCValue] = [], from: OSCEndpoint? = nil) {
        send(OSCMessage(address, args).encoded(), from: from)
    }

    func render(blocks: Int = 1) {
        for _ in 0..<blocks {
            if let input {
                input.withUnsafeBufferPointer { x in
                    _ = engine.render(frames: 256, inputLeft: x.baseAddress, inputRight: x.baseAddress, outputLeft: &left, outputRight: &right)
                }
            } else {
                _ = engine.render(frames: 256, inputLeft: nil, inputRight: nil, outputLeft: &left, outputRight: &right)
            }
        }
    }

    /// Renders, then lets the controller relay what the render thread applied.
    func settle(blocks: Int = 2) {
        render(blocks: blocks)
        controller.serveOnce()
    }

    /// A timetag `seconds` after the controller's now.
    func timeTag(in seconds: Double) -> OSCTimeTag { timeTagNow.adding(seconds: seconds) }

    /// Everything sent to the client since the last call.
    func replies() -> [OSCMessage] { outbox.take(for: client) }

    /// The one reply expected: `/rack/error ADDRESS REASON`.
    func error(_ address: String, _ reason: String) -> OSCMessage {
        OSCMessage("/rack/error", [.string(address), .string(reason)])
    }

    /// A temporary directory for files of the test.
    func temporaryDirectory() -> String { (try? makeTemporaryDirectory("rack-osc")) ?? NSTemporaryDirectory() }

    /// A stereo sine of `seconds` at 48 kHz, as a float WAV.
    func writeTone(seconds: Double, name: String = "tone.wav") throws -> String {
        let path = temporaryDirectory() + "/" + name
        let a440 = ToneChannel(hz: 440, amplitude: 0.5)
        try RackTestSupport.writeTone(path, seconds: seconds, format: .float, left: a440, right: a440, durable: false)
        return path
    }
}

