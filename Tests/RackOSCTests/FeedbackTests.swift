import Foundation
import XCTest
import RackDSP
import RackEngine
@testable import RackOSC
import RackWire

/// `/rack/subscribe`, `/rack/unsubscribe`, `/rack/meter`: feedback of applied changes and meters.
final class FeedbackTests: XCTestCase {
    func testSubscribersGetAppliedChangesOnce() {
        let rig = Rig()
        let sub = OSCEndpoint(host: "127.0.0.1", port: 9100)!
        rig.send("/rack/subscribe", [.int(Int32(sub.port))])
        rig.send("/rack/subscribe", [.int(Int32(sub.port))])   // twice: still told once
        XCTAssertEqual(rig.replies(), [], "a subscription gets no reply")
        rig.send("/rack/cutoff", [.float(5)])  // clamped
        XCTAssertEqual(rig.outbox.take(for: sub), [], "told when applied, not when received")
        rig.settle()
        XCTAssertEqual(rig.outbox.take(for: sub), [OSCMessage("/rack/cutoff", [.float(12)])])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/cutoff", "clamped to 12")], "the sender did not subscribe")
    }

    func testSubscribeDefaultsToTheSendersPort() {
        let rig = Rig()
        rig.send("/rack/subscribe")
        rig.send("/rack/room", [.string("plate")])
        rig.send("/rack/preset", [.string("Warm")])
        rig.settle()
        // The room brings its own values of the controls that follow it (the room rule); the
        // preset sets every parameter. A value the rack has already is not a change.
        let implied = RoomRule.implied(by: .plate).filter { RackState()[$0.0] != $0.1 }
            .map { ParameterCommands.valueMessage(Parameters[$0.0], $0.1) }
        let warm = rig.controller.presets.preset(named: "Warm")!.state
        XCTAssertEqual(rig.replies(), [OSCMessage("/rack/room", [.string("plate")])] + implied
            + [OSCMessage("/rack/preset", [.string("Warm")])]
            + Parameters.all.map { ParameterCommands.valueMessage($0, warm[$0.id]) })
        XCTAssertEqual(Array(rig.controller.presets.preset(named: "Warm")!.state.values.prefix(5)), [384, -3, 40, -0.8, Double(Room.mediumHall.rawValue)])
        rig.send("/rack/unsubscribe")
        rig.send("/rack/mix", [.float(77)])
        rig.settle()
        XCTAssertEqual(rig.replies(), [])
    }

    func testEverySubscriberIsToldInTheOrderTheySubscribed() {
        let rig = Rig()
        let a = OSCEndpoint(host: "127.0.0.1", port: 9101)!, b = OSCEndpoint(host: "127.0.0.1", port: 9102)!
        rig.send("/rack/subscribe", from: a)
        rig.send("/rack/subscribe", [.int(Int32(b.port))])
        rig.send("/rack/gain", [.float(-12), .float(3)])
        rig.settle()
        XCTAssertEqual(rig.outbox.sent.map(\.to), [a, b])
        XCTAssertEqual(rig.outbox.sent.map(\.message), [OSCMessage("/rack/gain", [.float(-12)])] + [OSCMessage("/rack/gain", [.float(-12)])],
                       "the target, even while ramping")
    }

    /// A WebSocket's TCP source port may be a UDP controller's port on the same address: they
    /// are two endpoints, and the WebSocket closing ends only its own subscription.
    func testAWebSocketAndAUDPControllerOfTheSamePortAreTwo() {
        let rig = Rig()
        let udp = OSCEndpoint(host: "127.0.0.1", port: 45_123)!
        var webSocket = udp
        webSocket.transport = .webSocket
        XCTAssertNotEqual(udp, webSocket)
        rig.send("/rack/subscribe", from: udp)
        rig.send("/rack/subscribe", from: webSocket)
        XCTAssertEqual(rig.controller.feedback.subscribers, [udp, webSocket])
        rig.controller.forget(webSocket)
        XCTAssertEqual(rig.controller.feedback.subscribers, [udp])
        rig.send("/rack/subscribe", [.int(9999)], from: webSocket)
        XCTAssertEqual(rig.controller.feedback.subscribers.last, OSCEndpoint(host: "127.0.0.1", port: 9999)!, "a port argument means UDP")
    }

    func testSubscriberLimits() {
        let rig = Rig()
        for port in 1...ControllerTuning.maximumSubscribers { rig.send("/rack/subscribe", [.int(Int32(port))]) }
        rig.send("/rack/subscribe", [.int(Int32(ControllerTuning.maximumSubscribers))])
        XCTAssertEqual(rig.replies(), [], "subscribing again is not one more")
        rig.send("/rack/subscribe", [.int(65_535)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/subscribe", "too many subscribers")])
        for port in 1...ControllerTuning.maximumSubscribers { rig.send("/rack/meter", [.int(Int32(port))]) }
        rig.send("/rack/meter", [.int(1)])
        XCTAssertEqual(rig.replies(), [])
        rig.send("/rack/meter", [.int(65_535)])
        XCTAssertEqual(rig.replies(), [rig.error("/rack/meter", "too many meter subscribers")])
        for bad: OSCValue in [.int(0), .int(65_536), .float(80.5), .float(.nan), .string("80")] {
            rig.send("/rack/subscribe", [bad])
            XCTAssertEqual(rig.replies(), [rig.error("/rack/subscribe", "port must be an integer 1…65535")], "\(bad)")
        }
    }

    func testMetersArePushedAtTheirRateUntilUnsubscribed() throws {
        let rig = Rig()
        let meters = OSCEndpoint(host: "127.0.0.1", port: 9200)!
        rig.send("/rack/meter", from: meters)
        rig.send("/rack/meter", from: meters)   // once is enough
        rig.controller.tick(now: 1000)
        rig.render(blocks: 4)
        rig.controller.tick(now: 1000 + 0.5 / ControllerTuning.meterHz)   // not due yet
        XCTAssertEqual(rig.outbox.take(for: meters).count, 1)
        rig.controller.tick(now: 1000 + 1 / ControllerTuning.meterHz)
        let m = try XCTUnwrap(rig.outbox.take(for: meters).first)
        XCTAssertEqual(m, OSCMessage("/rack/meter", [.float(-120), .float(-120), .float(-120), .float(-120), .float(12.5), .int(3), .int(0)]),
                       "silence (no input, no file): −120 dBFS")
        rig.send("/rack/unsubscribe", from: meters)
        rig.controller.tick(now: 1010)
        XCTAssertEqual(rig.outbox.take(for: meters), [])
    }

    func testMetersMeasureTheOutput() throws {
        let rig = Rig()
        rig.send("/rack/mix", [.float(0)])
        rig.send("/rack/player/load", [.string(try rig.writeTone(seconds: 2))])
        rig.render(blocks: 10)   // past the crossfade from nothing; within the pre-filled ring
        rig.send("/rack/meter")
        rig.controller.tick(now: 1000)   // the window so far
        rig.render(blocks: 20)
        rig.controller.tick(now: 1001)
        let m = try XCTUnwrap(rig.replies().last)
        XCTAssertEqual(m.address, "/rack/meter")
        let peak = try XCTUnwrap(m.arguments[0].number), rms = try XCTUnwrap(m.arguments[2].number)
        // A 0.5 sine: peak −6 dBFS, RMS −9 dBFS.
        XCTAssertEqual(peak, 20 * log10(0.5), accuracy: 0.1)
        XCTAssertEqual(rms, 20 * log10(0.5 / 2.0.squareRoot()), accuracy: 0.1)
    }

    func testSessionManagerIsToldOnceThatThereAreChanges() {
        let rig = Rig()
        let nsm = NSMClient(url: "osc.udp://127.0.0.1:7777/")!
        rig.controller.nsm = nsm
        rig.send("/rack/mix", [.float(10)])
        rig.send("/rack/mix", [.float(20)])
        rig.settle()
        XCTAssertEqual(rig.outbox.take(for: nsm.server), [OSCMessage("/nsm/client/is_dirty")])
    }
}
