import Foundation
import XCTest
import RackTestSupport
@testable import RackEngine
@testable import RackFiles
@testable import RackOSC
import RackWire

/// The table as a whole, the information commands, and what happens to any packet before a
/// handler sees it (decoding, the allow list, the error budget).
final class AddressSpaceTests: XCTestCase {
    /// For each command that checks its arguments: arguments it refuses, and the reason.
    static let refusals: [String: (args: [OSCValue], reason: String)] = [
        "/rack/status": ([.int(1)], "takes no arguments"),
        "/rack/get": ([], "expects one string: a parameter name"),
        "/rack/preset": ([], "expects a preset name or index and an optional ramp time"),
        "/rack/preset/save": ([.int(1)], "expects one string: the preset name"),
        "/rack/preset/delete": ([], "expects one string: the preset name"),
        "/rack/preset/list": ([.string("all")], "expects an optional page number"),
        "/rack/subscribe": ([.string("x")], "port must be an integer 1…65535"),
        "/rack/unsubscribe": ([.int(1), .int(2)], "expects an optional integer port"),
        "/rack/meter": ([.int(70_000)], "port must be an integer 1…65535"),
        "/rack/player/load": ([.float(1)], "expects one string: a file path"),
        "/rack/player/play": ([.int(1)], "takes no arguments"),
        "/rack/player/stop": ([.string("now")], "takes no arguments"),
        "/rack/player/loop": ([.int(2)], "expects 0 or 1"),
        "/rack/player/seek": ([.string("x")], "expects seconds"),
        "/rack/player/state": ([.int(1)], "takes no arguments"),
        "/rack/player/media": ([.string("x")], "takes no arguments"),
        "/rack/midi/learn": ([.int(1)], "expects an optional string: a parameter name"),
        "/rack/midi/map": ([.int(1)], "takes no arguments"),
        "/rack/midi/unmap": ([.string("x")], "expects one controller number 0…127"),
        "/sync": ([.string("x")], "expects an optional number: an id the reply carries"),
        "/rack/schedule/clear": ([.int(1)], "takes no arguments"),
    ]

    func testEveryCommandThatTakesArgumentsRefusesWrongOnesAndChangesNothing() {
        let rig = Rig()
        let checked = Set(RackController.commandTable.filter { $0.declaration.signature.notation != "*" && !$0.sessionManagerOnly }.map(\.address))
        XCTAssertEqual(checked, Set(Self.refusals.keys), "a command of the table without a refusal test, or the reverse")
        for (address, bad) in Self.refusals.sorted(by: { $0.key < $1.key }) {
            rig.send(address, bad.args)
            XCTAssertEqual(rig.replies(), [rig.error(address, bad.reason)], address)
        }
        XCTAssertEqual(rig.controller.targets, RackState())
        XCTAssertEqual(rig.outbox.sent.count, 0, "nothing went to anyone else")
    }

    func testTheTableHasOneEntryPerAddress() {
        let addresses = RackController.commandTable.map(\.address)
        XCTAssertEqual(addresses.count, Set(addresses).count)
        XCTAssertEqual(RackController.commands.count, addresses.count)
        for spec in Parameters.all {
            XCTAssertNil(RackController.commands[spec.address], "a parameter address is not a command")
        }
    }

    func testDefaults() {
        XCTAssertEqual(OSCDefaults.port, 8000, "the documented default of rack run --osc-port and rack send --to")
        XCTAssertEqual(OSCDefaults.host, "127.0.0.1", "loopback unless told otherwise")
    }

    func testUnknownAddresses() {
        let rig = Rig()
        for address in ["/rack/nowhere", "/nope", "/rack/room/norm", "/nsm/client/save", "/reply", "/" + String(repeating: "x", count: 5000)] {
            rig.send(address, [.float(1)])
            XCTAssertEqual(rig.replies(), [rig.error(address, "unknown address")], address)
        }
        // Within 2 edits of a known address (ignoring case), the nearest is suggested.
        let near = ["/rack/cutof": "/rack/cutoff", "/rack/cutoff/": "/rack/cutoff", "//rack/cutoff": "/rack/cutoff",
                    "/rack/cutoff/norm/x": "/rack/cutoff/norm", "/RACK/CUTOFF": "/rack/cutoff", "/rakc/mix": "/rack/mix",
                    "/rack/preset/sav": "/rack/preset/save", "/png": "/ping"]
        for (address, meant) in near {
            rig.send(address, [.float(1)])
            XCTAssertEqual(rig.replies(), [rig.error(address, "unknown address (did you mean \(meant)?)")], address)
        }
    }

    func testPing() {
        let rig = Rig()
        rig.send("/ping")
        rig.send("/ping", [.int(1)])   // arguments are ignored
        XCTAssertEqual(rig.replies(), [OSCMessage("/pong"), OSCMessage("/pong")])
    }

    func testVersion() {
        let rig = Rig()
        rig.send("/rack/version")
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/version", [.string(RackController.namespaceVersion)])])
    }

    func testStatus() {
        let rig = Rig()
        rig.send("/rack/status")
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/status", [.int(48_000), .int(256), .int(3), .float(12.5), .float(0), .string("running"), .int(0), .string("")])])
    }

    func testStats() {
        let rig = Rig()
        rig.send("/rack/stats", [.int(7)])
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/stats", [.int(0), .float(0), .float(0), .float(0),
                                                                  .float(Float(256.0 / 48_000 * 1e6)), .int(3)])])
    }

    func testParams() {
        let rig = Rig()
        rig.send("/rack/params")
        let rows = rig.replies()
        XCTAssertEqual(rows.count, Parameters.all.count)
        XCTAssertEqual(rows.first, OSCMessage("/rack/params", [.string("cutoff"), .string("Hz"), .float(12), .float(20_000),
                                                               .float(20_000), .string(Taper.logarithmic.rawValue)]))
        XCTAssertEqual(rows.map { $0.arguments[0] }, Parameters.all.map { .string($0.name) })
    }

    func testMalformedPacketsGetAnErrorWithoutAnAddress() {
        let rig = Rig()
        rig.send([UInt8](repeating: 0x41, count: 8))
        rig.send([0x2f, 0, 0])
        XCTAssertEqual(rig.replies(), [rig.error("", "not an OSC message (address must start with '/')"),
                                       rig.error("", "packet size 3 is not a positive multiple of 4")])
        XCTAssertEqual(rig.controller.packetsReceived, 2)
    }

    func testBundleMessagesAreHandledInOrder() {
        let rig = Rig()
        rig.send(OSCPacket.bundle([OSCMessage("/ping"), OSCMessage("/rack/nowhere"), OSCMessage("/rack/version")], timeTag: .immediately))
        XCTAssertEqual(rig.replies().map(\.address), ["/pong", "/rack/error", "/rack/version"])
    }

    func testErrorRepliesAreRateLimitedPerSecond() {
        let rig = Rig()
        let budget = ControllerTuning.errorRepliesPerSecond
        XCTAssertEqual(budget, 200, "the README's 200 a second")
        for _ in 0..<(budget + 300) { rig.controller.handle(OSCMessage("/rack/nowhere"), timeTag: .immediately, from: rig.client) }
        XCTAssertEqual(rig.replies().count, budget)
        XCTAssertEqual(rig.controller.droppedErrorReplies, 300)
        rig.now += 0.999
        rig.send("/rack/nowhere")
        XCTAssertEqual(rig.replies(), [], "still the same second")
        rig.now += 0.001
        rig.send("/rack/nowhere")
        XCTAssertEqual(rig.replies(), [rig.error("/rack/nowhere", "unknown address")], "a new second, a new budget")
        XCTAssertEqual(rig.controller.droppedErrorReplies, 301)
        rig.send("/ping")
        XCTAssertEqual(rig.replies(), [OSCMessage("/pong")], "other replies are not limited")
    }

    func testAllowListDropsOthersSilently() {
        let rig = Rig(allow: [AddressRange("10.0.0.0/8")!])
        rig.send("/ping")
        rig.send("/rack/cutoff", [.float(800)])
        XCTAssertEqual(rig.outbox.sent.count, 0)
        XCTAssertEqual(rig.controller.targets[.cutoff], 20_000)
        XCTAssertEqual(rig.controller.packetsReceived, 2)
        let inside = OSCEndpoint(host: "10.1.2.3", port: 5000)!
        rig.send("/ping", from: inside)
        XCTAssertEqual(rig.outbox.take(for: inside), [OSCMessage("/pong")])
        // The session manager is obeyed wherever it is.
        let nsm = NSMClient(url: "osc.udp://127.0.0.1:7777/")!
        rig.controller.nsm = nsm
        rig.send("/ping", from: nsm.server)
        XCTAssertEqual(rig.outbox.take(for: nsm.server), [OSCMessage("/pong")])
        XCTAssertTrue(AddressRange("127.0.0.1")!.contains(OSCEndpoint(host: "127.0.0.1", port: 1)!))
        XCTAssertFalse(AddressRange("192.168.1.0/24")!.contains(OSCEndpoint(host: "192.168.2.1", port: 1)!))
    }

    /// Bounded, seeded fuzz: random bytes, mutated valid packets, wrong types, huge strings.
    /// The controller never crashes, the engine's output stays finite while noise plays through
    /// it (and is heard: finiteness of silence would prove nothing), and it still answers.
    /// Names the fuzz sends on purpose: paths out of the preset directory, into others, hidden
    /// and empty names, a home directory, a drive-like name.
    static let hostileStrings = ["../../../../../../tmp/rack-fuzz", "/tmp/rack-fuzz", "a/b", "..", ".", "", ".hidden",
                                 "~/rack-fuzz", "C:\\rack", "Warm/../../x"]
    /// Floats the fuzz sends on purpose besides random bit patterns.
    static let hostileFloats: [Float] = [.nan, -.nan, .infinity, -.infinity, -0.0, .greatestFiniteMagnitude,
                                         -.greatestFiniteMagnitude, .leastNonzeroMagnitude]

    func testFuzzedPacketsNeverHurt() throws {
        let rig = Rig()
        var rng = SplitMix(seed: 20261122)
        rig.input = (0..<256).map { _ in Float(Double(rng.next() >> 11) / Double(1 << 53) - 0.5) }
        var loudest: Float = 0
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
                let s = rng.next() % 2 == 0 ? String(repeating: "x", count: Int(rng.next() % 5000))
                                            : Self.hostileStrings[Int(rng.next() % UInt64(Self.hostileStrings.count))]
                let f = rng.next() % 2 == 0 ? Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
                                            : Self.hostileFloats[Int(rng.next() % UInt64(Self.hostileFloats.count))]
                let args: [OSCValue] = [.string(s), .int(Int32(truncatingIfNeeded: rng.next())), .float(f)]
                p = OSCMessage(["/rack/cutoff", "/rack/preset/save", "/rack/get", "/rack/room", "/rack/subscribe"][i % 5], Array(args.shuffled(using: &rng).prefix(Int(rng.next() % 3)))).encoded()
            }
            rig.send(p)
            XCTAssertTrue(rig.left.allSatisfy(\.isFinite) && rig.right.allSatisfy(\.isFinite), "packet \(i)")
            loudest = max(loudest, rig.left.map(abs).max()!, rig.right.map(abs).max()!)
            if i % 100 == 0 { rig.now += 1 }
        }
        XCTAssertGreaterThan(loudest, 0.05, "the noise was heard through the fuzzed settings")
        _ = rig.replies()
        rig.now += 1
        rig.send("/ping")
        XCTAssertEqual(rig.replies(), [OSCMessage("/pong")])
        // Nothing was written but valid preset names.
        // A valid save still works, and shows that the listing sees the files (a listing that
        // fails fails the test).
        rig.now += 1
        rig.send("/rack/preset/save", [.string("After The Fuzz")])
        XCTAssertEqual(rig.replies().map(\.address), ["/rack/preset/saved"])
        let files = try FileManager.default.contentsOfDirectory(atPath: rig.userDir)
            .filter { ![PresetNumbers.fileName, PresetDirectory.lockFileName].contains($0) }
        XCTAssertTrue(files.contains("After The Fuzz.json"), "\(files)")
        for f in files { XCTAssertNil(PresetStore.problem(withName: String(f.dropLast(5))), f) }
    }
}

/// The address space is declared once (`OSCAddressSpace`); the handlers, the signature check
/// and the automation parser must agree with that declaration.
final class AddressSpaceDeclarationTests: XCTestCase {
    func testEveryDeclaredCommandHasOneHandlerAndEveryHandlerADeclaration() {
        let declared = OSCAddressSpace.commands.map(\.address)
        XCTAssertEqual(declared.count, Set(declared).count, "an address declared twice")
        let registered = RackController.registrations.map(\.address)
        XCTAssertEqual(registered.sorted(), declared.sorted(), "every declared command registered once, and nothing else")
        XCTAssertEqual(RackController.commandTable.map(\.address), declared)
    }

    func testSignaturesAreCheckedBeforeTheHandler() {
        let rig = Rig()
        // A blob is no kind any slot takes; the declared refusal answers, the handler never runs.
        rig.send("/rack/preset/save", [.blob(4)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/preset/save", "expects one string: the preset name")])
        XCTAssertEqual(rig.controller.presets.user.count, 0)
        XCTAssertNil(OSCSignature.any.refusal([nil, .string]))
        XCTAssertEqual(OSCSignature.none.refusal([.number]), "takes no arguments")
        let preset = OSCAddressSpace.byAddress["/rack/preset"]!.signature
        XCTAssertEqual(preset.notation, "s|n [n]")
        XCTAssertNil(preset.refusal([.number, .number]))
        XCTAssertEqual(preset.refusal([.string, .string]), "ramp time must be a number of seconds")
        XCTAssertEqual(preset.refusal([]), "expects a preset name or index and an optional ramp time")
    }

    /// Every declared command is accepted by an automation file exactly when it is declared
    /// automatable; no query is.
    func testTheAutomationParserAcceptsExactlyTheAutomatableCommands() {
        for declaration in OSCAddressSpace.commands {
            let automation = Automation.parse("0 \(declaration.address)\n", presetNames: ["Warm"], presetAtIndex: { _ in nil })
            let refused = automation.errors.contains { $0.message == "unknown or non-automatable address '\(declaration.address)'" }
            XCTAssertEqual(refused, declaration.automation == nil, declaration.address)
            if declaration.isQuery { XCTAssertNil(declaration.automation, "a query in an automation file: \(declaration.address)") }
        }
        let play = Automation.parse("0 /rack/player/play\n1 /rack/player/stop\n2 /rack/preset Warm\n", presetNames: ["Warm"],
                                    presetAtIndex: { _ in nil })
        XCTAssertEqual(play.events.map(\.action), [.play, .stop, .preset(name: "Warm", rampSeconds: nil)])
    }
}
