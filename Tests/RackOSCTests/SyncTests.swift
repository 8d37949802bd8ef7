import XCTest
import RackEngine
@testable import RackOSC
import RackWire

/// `/sync` answers once the render thread has taken every change sent before it; `/pong` only
/// says the control thread read them. The rig renders only when the test says so, as a server
/// that runs the rack's cycles late.
final class SyncTests: XCTestCase {
    private func handle(_ rig: Rig, _ address: String, _ args: [OSCValue] = []) {
        OSCMessage(address, args).encoded().withUnsafeBytes { rig.controller.handle(datagram: $0, from: rig.client) }
    }

    func testASyncIsAnsweredOnlyOnceTheRenderThreadTookWhatCameBefore() {
        let rig = Rig()
        handle(rig, "/rack/cutoff", [.float(500)])
        handle(rig, "/sync", [.int(7)])
        handle(rig, "/ping")
        rig.controller.serveOnce()
        XCTAssertEqual(rig.replies(), [OSCMessage("/pong")], "the cutoff still waits in the render thread's queue")
        XCTAssertEqual(rig.engine.takenCount, 0)
        rig.render()
        rig.controller.serveOnce()
        XCTAssertEqual(rig.replies(), [OSCMessage("/synced", [.int(7)])])
        rig.settle(blocks: 4)
        XCTAssertEqual(rig.replies(), [], "answered once")
    }

    func testASyncWithNothingInFlightIsAnsweredAtOnce() {
        let rig = Rig()
        handle(rig, "/sync")
        XCTAssertEqual(rig.replies(), [OSCMessage("/synced")])
    }

    func testSyncsAreAnsweredInTheirOrderAsTheQueueDrains() {
        let rig = Rig()
        handle(rig, "/rack/cutoff", [.float(500)])
        handle(rig, "/sync", [.int(1)])
        handle(rig, "/rack/mix", [.float(20)])
        handle(rig, "/sync", [.int(2)])
        rig.controller.serveOnce()
        XCTAssertEqual(rig.replies(), [])
        rig.render()
        rig.controller.serveOnce()
        XCTAssertEqual(rig.replies(), [OSCMessage("/synced", [.int(1)]), OSCMessage("/synced", [.int(2)])])
    }

    func testTheLoopLooksAgainWhileASyncWaits() {
        let rig = Rig()
        handle(rig, "/rack/cutoff", [.float(500)])
        rig.now += 10   // past the echo window: only the sync keeps the loop looking
        handle(rig, "/sync")
        XCTAssertEqual(rig.controller.nextDeadline(now: rig.now), rig.now + ControllerTuning.echoLookSeconds)
    }

    func testWaitingSyncsAreAnsweredWhenTheServerGoes() {
        let rig = Rig()
        handle(rig, "/rack/cutoff", [.float(500)])
        handle(rig, "/sync", [.int(3)])
        rig.host.isRunning = false
        rig.controller.serveOnce()
        XCTAssertEqual(rig.replies(), [OSCMessage("/synced", [.int(3)])],
                       "the state holds the change; the engine that comes back takes it up")
    }

    func testSyncsBeyondTheLimitAreRefused() {
        let rig = Rig()
        handle(rig, "/rack/cutoff", [.float(500)])
        for i in 0..<ControllerTuning.pendingSyncs { handle(rig, "/sync", [.int(Int32(i))]) }
        XCTAssertEqual(rig.replies(), [])
        handle(rig, "/sync", [.int(-1)])
        XCTAssertEqual(rig.replies(), [rig.error("/sync", "busy: \(ControllerTuning.pendingSyncs) syncs are already waiting for the render thread")])
        rig.render()
        rig.controller.serveOnce()
        XCTAssertEqual(rig.replies().count, ControllerTuning.pendingSyncs)
    }
}
