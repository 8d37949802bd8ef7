import XCTest
import RackEngine
@testable import RackPlot

final class CurveDecimatorTests: XCTestCase {
    /// 20,000 ramps of 20 ms, one every 50 ms: far narrower than a pixel of a 1,000 s axis.
    func dense(_ count: Int) -> (text: String, values: [Double]) {
        let values = (0..<count).map { Double(200 + ($0 * 37) % 9000) }
        let text = values.enumerated().map { "\(Double($0.offset) * 0.05) /rack/cutoff \($0.element) 0.02" }.joined(separator: "\n")
        return (text, values)
    }

    func testALaneOfManyNarrowRampsHoldsABoundedNumberOfPointsAndEveryExtreme() {
        let (text, values) = dense(20_000)
        let cutoff = timeline(text).tracks.first { $0.id == .cutoff }!
        let points = cutoff.segments.flatMap(\.points)
        // About four points per bucket of two pixels of 900, whatever the number of events.
        XCTAssertLessThanOrEqual(points.count, 4 * 460, "points kept")
        XCTAssertEqual(cutoff.segments.map(\.merged).reduce(0, +), 2 * 20_000, "every ramp and hold is in some segment")
        // Each ramp arrives (20 ms < 50 ms): the drawn curve spans exactly the values sent, and
        // the starting 20 kHz.
        XCTAssertEqual(points.map(\.value).min()!, values.min()!, accuracy: 1e-9)
        XCTAssertEqual(points.map(\.value).max()!, Parameters[.cutoff].defaultValue, accuracy: 1e-9)
        XCTAssertEqual(points.map(\.time), points.map(\.time).sorted(), "in time order")
    }

    func testSegmentsWideEnoughToSeeAreKeptAsTheyAre() {
        let t = timeline("0 /rack/cutoff 800 1.5\n5 /rack/mix 80 0.5\n")
        for track in t.tracks {
            XCTAssertTrue(track.segments.allSatisfy { $0.merged == 1 }, "\(track.id)")
        }
    }
}
