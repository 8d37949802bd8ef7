import XCTest
import RackEngine
import RackFiles
@testable import RackPlot

/// What a timeline says it starts from: a recording begins with its whole state at t = 0, so
/// its plot names that state, not the parameter table's defaults.
final class TimelineStartTests: XCTestCase {
    func parse(_ lines: [String]) -> Automation {
        Automation.parse(lines.joined(separator: "\n") + "\n", presetNames: ["Warm"], presetAtIndex: { _ in nil }, length: nil)
    }

    func testARecordingStartsFromTheFilesState() {
        var state = RackState()
        state[.mix] = 40
        let recording = AutomationWriter.startingLines(state: state, preset: "Warm", loop: true, positionSeconds: 0)
            + ["1.000000 /rack/cutoff 800"]
        let text = Timeline.describeStart("parameter table defaults", automation: parse(recording))
        XCTAssertEqual(text, "the file's t = 0 state (every parameter)")
        let timeline = Timeline.make(automation: parse(recording), text: recording.joined(separator: "\n"), fileName: "rec.txt",
                                     presetState: { _ in RackState() }, startDescription: text)
        let svg = TimelinePlot.svg(timeline)
        XCTAssertTrue(svg.contains("start: the file") && svg.contains("s t = 0 state (every parameter)"), svg)
        XCTAssertFalse(svg.contains("parameter table defaults"))
    }

    func testSomeLinesAtZeroAddToTheStart() {
        let file = parse(["0 /rack/mix 40", "0 /rack/cutoff 900", "0.5 /rack/gain -3", "0 /rack/gain -6 1"])
        XCTAssertEqual(Timeline.describeStart("preset Warm", automation: file),
                       "preset Warm + the file's t = 0 state (cutoff, mix)", "table order; a ramped line is a change")
        XCTAssertEqual(Timeline.describeStart("parameter table defaults", automation: parse(["1 /rack/mix 40"])),
                       "parameter table defaults")
    }
}
