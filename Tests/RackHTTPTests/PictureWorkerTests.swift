import Dispatch
import XCTest
import RackEngine
@testable import RackHTTP

/// The page's pictures are drawn by workers of their own from the live values, coalescing
/// bursts of changes, and each new drawing's version is pushed to listeners.
final class PictureWorkerTests: XCTestCase {
    func decayWorker(_ state: LiveState) throws -> PictureWorker {
        PictureWorker(picture: try XCTUnwrap(PagePictures.picture(at: "/ui/picture/decay.svg")), state: state)
    }

    func testTheDecayPictureIsDrawnFromTheLiveValues() throws {
        let state = LiveState()
        state.publish(Parameters[.decay], value: 0.5)
        state.publish(Parameters[.damping], value: 4000)
        let worker = try decayWorker(state)
        XCTAssertNil(worker.latest, "nothing drawn before it is asked")
        worker.changed()
        worker.settle()
        let drawing = try XCTUnwrap(worker.latest)
        XCTAssertEqual(drawing.version, 1)
        XCTAssertTrue(drawing.svg.contains("data-decay=\"0.5\"") && drawing.svg.contains("data-damping=\"4000\""))
        XCTAssertEqual(drawing.svg.components(separatedBy: "class=\"band\"").count - 1, 7, "one point per octave band")
        XCTAssertEqual(state.snapshot().values["/ui/picture/decay"]?.first, .int(1), "the version is published")
        // A change the measurement does not depend on (freeze) or no change at all: no new drawing.
        state.publish(Parameters[.freeze], value: 1)
        worker.changed()
        worker.settle()
        XCTAssertEqual(worker.latest?.version, 1)
    }

    func testABurstOfChangesIsDrawnOnceForTheLatestState() throws {
        let state = LiveState()
        state.publish(Parameters[.decay], value: 0.3)
        let worker = try decayWorker(state)
        worker.changed()
        worker.settle()
        // Hold the worker busy while 20 changes arrive, as a fader drag does during a drawing.
        let gate = DispatchSemaphore(value: 0)
        worker.queue.async { gate.wait() }
        for step in 1...20 {
            state.publish(Parameters[.decay], value: 0.3 + 0.01 * Double(step))
            worker.changed()
        }
        gate.signal()
        worker.settle()
        let drawing = try XCTUnwrap(worker.latest)
        XCTAssertEqual(drawing.version, 2, "20 changes during a drawing: one more drawing")
        XCTAssertEqual(drawing.inputs, worker.picture.inputs(state.snapshot()), "of the latest state")
        XCTAssertTrue(drawing.svg.contains("data-decay=\"0.5\""), "decay 0.3 + 20 × 0.01")
    }

    func testAPictureVersionCanBeListenedTo() {
        for p in PagePictures.all {
            XCTAssertEqual(WebSocketSession.listenable(p.versionAddress, presetNames: []), p.versionAddress)
            XCTAssertTrue(p.watchedAddresses.contains("/rack/status"), "the sample rate")
        }
        XCTAssertNil(WebSocketSession.listenable("/ui/picture/nothing", presetNames: []))
    }
}
