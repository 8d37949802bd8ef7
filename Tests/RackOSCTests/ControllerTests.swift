import Foundation
import XCTest
import RackDSP
import RackEngine
import RackIO
@testable import RackOSC

/// A host without JACK: the test renders the engine itself.
final class FakeHost: RackHost {
    let engine: Engine?
    init(engine: Engine) { self.engine = engine }
    var bufferSize: Int { 256 }
    var xruns: Int { 0 }
    var dspLoadPercent: Double { 0 }
    var stateName: String { "running" }
    func engineSample(secondsFromNow: Double) -> Int64? { (engine?.sampleTime ?? 0) + Int64(secondsFromNow * 48_000) }
    func takeCycleStats() -> CycleStats { CycleStats() }
}

/// A controller on a real socket, a client socket to talk to it, and an engine rendered by hand.
final class Rig {
    let engine = Engine(sampleRate: 48_000, maxFrames: 256)
    let host: FakeHost
    let server: UDPSocket
    let client: UDPSocket
    let controller: RackController
    let userDir: String
    var left = [Float](repeating: 0, count: 256), right = [Float](repeating: 0, count: 256)

    init() throws {
        host = FakeHost(engine: engine)
        server = try UDPSocket(host: "127.0.0.1", port: 0)
        client = try UDPSocket(host: "127.0.0.1", port: 0)
        userDir = NSTemporaryDirectory() + "rack-osc-" + UUID().uuidString + "/presets"
        let factory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Presets").path
        controller = RackController(socket: server, host: host, presets: PresetStore(factoryDirectory: factory, userDirectory: userDir),
                                    initial: RackState())
    }

    /// Sends raw bytes as the client, lets the controller handle them, renders a block.
    func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { controller.handle(datagram: $0, from: client.local) }
        render()
    }

    func send(_ address: String, _ args: [OSCValue] = []) { send(OSCMessage(address, args).encoded()) }

    func render(blocks: Int = 1) {
        for _ in 0..<blocks {
            _ = engine.render(frames: 256, inputLeft: nil, inputRight: nil, outputLeft: &left, outputRight: &right)
        }
    }

    /// Every reply waiting for the client.
    func replies() -> [OSCMessage] {
        var out: [OSCMessage] = []
        var buf = [UInt8](repeating: 0, count: 65_536)
        while true {
            let got = buf.withUnsafeMutableBytes { client.receive(into: $0, timeoutMilliseconds: 20) }
            guard let (n, _) = got else { break }
            if let m = try? buf.withUnsafeBytes({ try OSCPacket.decode(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) {
                out += m.map(\.0)
            }
        }
        return out
    }
}

final class ControllerTests: XCTestCase {
    func testSetGetClampAndReject() throws {
        let rig = try Rig()
        rig.send("/rack/cutoff", [.float(800)])
        rig.send("/rack/get", [.string("cutoff")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/cutoff", [.float(800)])])
        rig.send("/rack/mix", [.int(30)])
        rig.send("/rack/get", [.string("mix")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/mix", [.float(30)])])
        rig.send("/rack/gain", [.float(40)])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/error", [.string("/rack/gain"), .string("clamped to 12")])])
        XCTAssertEqual(rig.controller.targets[.gain], 12)
        for bad: OSCValue in [.float(.nan), .float(.infinity), .double(-.infinity), .string("loud"), .bool(true)] {
            rig.send("/rack/resonance", [bad])
            XCTAssertEqual(rig.replies().first?.address, "/rack/error", "\(bad)")
        }
        XCTAssertEqual(rig.controller.targets[.resonance], 0, "nothing bad was applied")
        rig.send("/rack/cutoff", [.float(500), .float(-1)])
        XCTAssertEqual(rig.replies().first?.arguments.last, .string("ramp time must not be negative"))
        rig.send("/rack/room", [.string("plate")])
        rig.send("/rack/get", [.string("room")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/room", [.string("plate")])])
        rig.send("/rack/nowhere")
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/error", [.string("/rack/nowhere"), .string("unknown address")])])
    }

    func testNormalizedCutoffIsLogarithmic() throws {
        let rig = try Rig()
        rig.send("/rack/cutoff/norm", [.float(0.5)])
        XCTAssertEqual(rig.controller.targets[.cutoff], (12 * 20_000.0).squareRoot(), accuracy: 1e-6)
    }

    func testPresetsOverOSC() throws {
        let rig = try Rig()
        rig.send("/rack/preset", [.string("Warm"), .float(0.5)])
        rig.send("/rack/dump")
        let dump = rig.replies()
        XCTAssertEqual(dump.map(\.address), ["/rack/cutoff", "/rack/resonance", "/rack/mix", "/rack/gain", "/rack/room", "/rack/preset"])
        XCTAssertEqual(dump[0].arguments, [.float(384)])
        XCTAssertEqual(dump[5].arguments, [.string("Warm")])
        rig.send("/rack/preset/save", [.string("Night Set")])
        XCTAssertTrue(FileManager.default.fileExists(atPath: rig.userDir + "/Night Set.json"))
        for bad in ["../x", "/tmp/x", "a/b", "", String(repeating: "n", count: 65), ".hidden"] {
            rig.send("/rack/preset/save", [.string(bad)])
            XCTAssertEqual(rig.replies().first?.address, "/rack/error", bad)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: rig.userDir), ["Night Set.json"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: rig.userDir + "/../x.json"))
        rig.send("/rack/preset/list")
        let list = rig.replies().first!
        XCTAssertTrue(list.arguments.contains(.string("Night Set")) && list.arguments.contains(.string("Warm")))
        rig.send("/rack/preset", [.int(-1)])
        XCTAssertEqual(rig.replies(), [])
        rig.send("/rack/preset/delete", [.string("Night Set")])
        XCTAssertFalse(FileManager.default.fileExists(atPath: rig.userDir + "/Night Set.json"))
    }

    func testSubscribersGetAppliedChangesOnce() throws {
        let rig = try Rig()
        let sub = try UDPSocket(host: "127.0.0.1", port: 0)
        rig.send("/rack/subscribe", [.int(Int32(sub.local.port))])
        rig.send("/rack/cutoff", [.float(90_000)])  // clamped
        rig.render(blocks: 2)
        rig.controller.serveOnce()
        var buf = [UInt8](repeating: 0, count: 2048)
        var got: [OSCMessage] = []
        while let (n, _) = buf.withUnsafeMutableBytes({ sub.receive(into: $0, timeoutMilliseconds: 50) }) {
            got += try buf.withUnsafeBytes { try OSCPacket.decode(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }.map(\.0)
        }
        XCTAssertEqual(got, [OSCMessage("/rack/cutoff", [.float(20_000)])])
    }

    func testFutureTimetagAppliesAtItsSample() throws {
        let rig = try Rig()
        let bundle = OSCPacket.bundle([OSCMessage("/rack/mix", [.float(10)])], timeTag: OSCTimeTag.now().adding(seconds: 0.1))
        rig.send(bundle)
        rig.send("/rack/gain", [.float(-6)])   // immediate, after the future one
        rig.render(blocks: 40)                 // ~0.21 s
        rig.controller.serveOnce()
        // The echoes say when each took effect: gain first, at once; mix about 0.1 s later.
        XCTAssertEqual(rig.controller.lastApplied.map(\.parameter), [.gain, .mix])
        let t = rig.controller.lastApplied.map(\.sampleTime)
        XCTAssertLessThan(t[0], 512)
        XCTAssertEqual(Double(t[1]) / 48_000, 0.1, accuracy: 0.02)
    }

    func testAPresetKeepingTheRoomStillEchoesEveryParameter() throws {
        // Warm's room is the default room: its recall must still come back as five applied
        // parameters, or the next change would be taken for part of the recall.
        let rig = try Rig()
        rig.send("/rack/preset", [.string("Warm")])
        rig.send("/rack/room", [.string("plate")])
        rig.render(blocks: 2)
        rig.controller.serveOnce()
        XCTAssertEqual(rig.controller.lastApplied.map(\.parameter), [.cutoff, .resonance, .mix, .gain, .room, .room])
        XCTAssertEqual(rig.controller.lastApplied.last?.value, Double(Room.plate.rawValue))
    }

    func testGetReportsAScheduledValueOnlyOnceItIsApplied() throws {
        let rig = try Rig()
        rig.send(OSCPacket.bundle([OSCMessage("/rack/resonance", [.float(6)])], timeTag: OSCTimeTag.now().adding(seconds: 0.05)))
        rig.send("/rack/resonance", [.float(-6)])
        rig.send("/rack/get", [.string("resonance")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/resonance", [.float(-6)])], "the future value is not the target yet")
        rig.render(blocks: 20)   // ~0.1 s: the scheduled change is applied after the immediate one
        rig.controller.serveOnce()
        rig.send("/rack/get", [.string("resonance")])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/resonance", [.float(6)])], "applied last, so it is the target")
    }

    /// Bounded, seeded fuzz: random bytes, mutated valid packets, wrong types, huge strings.
    /// The controller never crashes, the engine's output stays finite, and it still answers.
    func testFuzzedPacketsNeverHurt() throws {
        let rig = try Rig()
        var rng = SplitMix(seed: 20261122)
        let valid: [[UInt8]] = [
            OSCMessage("/rack/cutoff", [.float(1000)]).encoded(),
            OSCMessage("/rack/preset", [.string("Warm"), .float(0.1)]).encoded(),
            OSCMessage("/rack/room", [.string("plate")]).encoded(),
            OSCMessage("/rack/player/load", [.string("/dev/zero")]).encoded(),
            OSCPacket.bundle([OSCMessage("/rack/mix", [.float(20)]), OSCMessage("/rack/gain", [.int(-3)])], timeTag: .immediately),
        ]
        for i in 0..<3000 {
            var p: [UInt8]
            switch rng.next() % 4 {
            case 0: p = (0..<Int(rng.next() % 200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            case 1:
                p = valid[Int(rng.next() % UInt64(valid.count))]
                for _ in 0..<(1 + rng.next() % 4) where !p.isEmpty { p[Int(rng.next() % UInt64(p.count))] = UInt8(truncatingIfNeeded: rng.next()) }
            case 2:
                p = valid[Int(rng.next() % UInt64(valid.count))]
                p = Array(p.prefix(Int(rng.next() % UInt64(p.count + 1))))
            default:
                let s = String(repeating: "x", count: Int(rng.next() % 5000))
                let args: [OSCValue] = [.string(s), .int(Int32(truncatingIfNeeded: rng.next())), .float(Float(bitPattern: UInt32(truncatingIfNeeded: rng.next())))]
                p = OSCMessage(["/rack/cutoff", "/rack/preset/save", "/rack/get", "/rack/room", "/rack/subscribe"][i % 5], Array(args.shuffled(using: &rng).prefix(Int(rng.next() % 3)))).encoded()
            }
            rig.send(p)
            XCTAssertTrue(rig.left.allSatisfy(\.isFinite) && rig.right.allSatisfy(\.isFinite), "packet \(i)")
        }
        _ = rig.replies()
        rig.send("/ping")
        XCTAssertTrue(rig.replies().contains(OSCMessage("/pong")))
        // Nothing was written but valid preset names.
        let files = (try? FileManager.default.contentsOfDirectory(atPath: rig.userDir)) ?? []
        for f in files { XCTAssertNil(PresetStore.problem(withName: String(f.dropLast(5))), f) }
    }

    func testErrorRepliesAreRateLimited() throws {
        let rig = try Rig()
        for _ in 0..<(ControllerTuning.errorRepliesPerSecond + 300) {
            [UInt8](repeating: 0x41, count: 8).withUnsafeBytes { rig.controller.handle(datagram: $0, from: rig.client.local) }
        }
        XCTAssertGreaterThanOrEqual(rig.controller.droppedErrorReplies, 300)
    }

    func testAllowListDropsOthersSilently() throws {
        let rig = try Rig()
        let strict = RackController(socket: rig.server, host: rig.host, presets: rig.controller.presets, initial: RackState(),
                                    allow: [AddressRange("10.0.0.0/8")!])
        OSCMessage("/ping").encoded().withUnsafeBytes { strict.handle(datagram: $0, from: rig.client.local) }
        XCTAssertEqual(rig.replies(), [])
        XCTAssertTrue(AddressRange("127.0.0.1")!.contains(OSCEndpoint(host: "127.0.0.1", port: 1)!))
        XCTAssertFalse(AddressRange("192.168.1.0/24")!.contains(OSCEndpoint(host: "192.168.2.1", port: 1)!))
    }
}

/// A small seeded generator (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
