import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
import RackDSP
import RackEngine
import RackFiles
@testable import RackPlot
import RackTestSupport

// MARK: - A small DOM read with XMLParser (Foundation's XMLDocument is not everywhere on Linux)

final class Node {
    let name: String
    let attributes: [String: String]
    var children: [Node] = []
    var text = ""
    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    subscript(_ key: String) -> String? { attributes[key] }
    var classes: Set<String> { Set((attributes["class"] ?? "").split(separator: " ").map(String.init)) }

    /// This node and every node under it, depth first.
    var all: [Node] { [self] + children.flatMap(\.all) }
    func find(_ where_: (Node) -> Bool) -> [Node] { all.filter(where_) }
    func first(id: String) -> Node? { all.first { $0["id"] == id } }
}

final class DOMBuilder: NSObject, XMLParserDelegate {
    var stack: [Node] = []
    var root: Node?
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        let node = Node(name: name, attributes: attributes)
        stack.last?.children.append(node)
        if root == nil { root = node }
        stack.append(node)
    }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.text += string }
}

/// Parses `svg` as XML; fails the test when it is not well-formed.
func parseSVG(_ svg: String, file: StaticString = #filePath, line: UInt = #line) throws -> Node {
    let parser = XMLParser(data: Data(svg.utf8))
    let builder = DOMBuilder()
    parser.delegate = builder
    let ok = parser.parse()
    XCTAssertTrue(ok, "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?")", file: file, line: line)
    return try XCTUnwrap(builder.root, file: file, line: line)
}

/// The points of a path's `d` ("M x y L x y …").
func points(_ d: String) -> [(x: Double, y: Double)] {
    let numbers = d.split(whereSeparator: { $0 == " " || $0 == "M" || $0 == "L" }).compactMap { Double($0) }
    return stride(from: 0, to: numbers.count - 1, by: 2).map { (numbers[$0], numbers[$0 + 1]) }
}

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The factory presets of the repository, and no user presets.
let factoryPresets = PresetStore(factoryDirectory: repositoryRoot.appendingPathComponent("Presets").path,
                                 userDirectory: NSTemporaryDirectory() + "/rack-plot-tests-no-user-presets")

func timeline(_ text: String, length: Double? = nil, name: String = "test.txt") -> Timeline {
    Timeline.make(text: text, fileName: name, presets: factoryPresets, sampleRate: 48_000, length: length)
}

/// A lane's geometry as the SVG states it.
struct LaneGeometry {
    let top, bottom, left, right, duration, minimum, maximum: Double
    init(_ lane: Node) throws {
        top = try XCTUnwrap(lane["data-top"].flatMap(Double.init))
        bottom = try XCTUnwrap(lane["data-bottom"].flatMap(Double.init))
        left = try XCTUnwrap(lane["data-left"].flatMap(Double.init))
        right = try XCTUnwrap(lane["data-right"].flatMap(Double.init))
        duration = try XCTUnwrap(lane["data-duration"].flatMap(Double.init))
        minimum = Double(lane["data-min"] ?? "") ?? .nan
        maximum = Double(lane["data-max"] ?? "") ?? .nan
    }
    func x(_ t: Double) -> Double { left + (right - left) * t / duration }
}

final class TimelinePlotTests: XCTestCase {
    let session = """
        0.0   /rack/preset  Warm
        2.0   /rack/cutoff  800  1.5     # ramp to 800 Hz over 1.5 s
        4.0   /rack/mix     80   0.5
        5.0   /rack/room    plate
        6.0   /rack/preset  Bright 1
        7.5   /rack/gain    -30  2
        """

    func testTheSVGIsWellFormedWithOneLanePerParameterAndItsUnit() throws {
        let svg = try parseSVG(TimelinePlot.svg(timeline(session)))
        XCTAssertEqual(svg.name, "svg")
        let width = try XCTUnwrap(svg["width"].flatMap(Double.init))
        XCTAssertEqual(width, 1000, accuracy: 100)
        let lanes = svg.find { $0.classes.contains("lane") }
        XCTAssertEqual(lanes.map { $0["id"] }, Parameters.all.map { "lane-\($0.name)" }, "one lane per parameter, table order")
        for spec in Parameters.all {
            let lane = try XCTUnwrap(svg.first(id: "lane-\(spec.name)"))
            let unit = lane.find { $0.classes.contains("lane-unit") }.map(\.text).joined()
            XCTAssertTrue(unit.contains(spec.unit), "\(spec.name) lane states its unit '\(spec.unit)': '\(unit)'")
        }
        // Continuous lanes have labelled ticks with the unit.
        for spec in Parameters.all where spec.taper == .toggle {
            let ticks = try XCTUnwrap(svg.first(id: "lane-\(spec.name)")).find { $0.classes.contains("tick-label") }
            XCTAssertEqual(ticks.map(\.text), ["off", "on"], spec.name)
        }
        for spec in Parameters.all where spec.taper != .choice && spec.taper != .toggle {
            let ticks = try XCTUnwrap(svg.first(id: "lane-\(spec.name)")).find { $0.classes.contains("tick-label") }
            XCTAssertGreaterThanOrEqual(ticks.count, 3, spec.name)
            XCTAssertTrue(ticks.allSatisfy { $0.text.hasSuffix(spec.unit) }, "\(spec.name): \(ticks.map(\.text))")
        }
        let title = svg.find { $0.classes.contains("title") }.first?.text ?? ""
        XCTAssertTrue(title.contains("test.txt"), title)
    }

    func testAPresetRecallIsMarkedWithItsNameAndTheLanesMoveToItsValues() throws {
        let t = timeline(session)
        let svg = try parseSVG(TimelinePlot.svg(t))
        let marks = svg.find { $0.classes.contains("preset-recall") }
        XCTAssertEqual(marks.map { $0["data-name"] }, ["Warm", "Bright"])
        let bright = try XCTUnwrap(marks.last)
        XCTAssertEqual(bright["data-time"], "6")
        XCTAssertTrue(bright.find { $0.name == "text" }.contains { $0.text == "Bright" }, "the label shows the name")
        let dashed = bright.find { $0.name == "line" && $0["stroke-dasharray"] != nil }
        XCTAssertFalse(dashed.isEmpty, "a dashed vertical line")
        XCTAssertTrue(dashed.allSatisfy { $0["x1"] == $0["x2"] })
        let lanes = svg.find { $0.classes.contains("lane") }
        let lanesTop = lanes.compactMap { $0["data-top"].flatMap(Double.init) }.min()!
        let lanesBottom = lanes.compactMap { $0["data-bottom"].flatMap(Double.init) }.max()!
        XCTAssertLessThanOrEqual(dashed.compactMap { $0["y1"].flatMap(Double.init) }.min()!, lanesTop)
        XCTAssertGreaterThanOrEqual(dashed.compactMap { $0["y2"].flatMap(Double.init) }.max()!, lanesBottom - 0.01)

        // After the recall's 1 s ramp, every continuous parameter holds the preset's value
        // (gain until its own ramp at 7.5 s).
        let preset = try XCTUnwrap(factoryPresets.preset(named: "Bright"))
        for track in t.tracks {
            let at = track.segments.flatMap(\.points).last { $0.time <= 7.2 }!
            XCTAssertEqual(at.value, preset.state[track.id], accuracy: 1e-9 * max(1, abs(at.value)), track.spec.name)
        }
        XCTAssertEqual(t.rooms.last?.room, preset.state.room)
    }

    func testARampFromTwoToThreeAndAHalfSecondsIsAMonotonicPathBetweenThoseTimes() throws {
        let svg = try parseSVG(TimelinePlot.svg(timeline(session)))
        let lane = try XCTUnwrap(svg.first(id: "lane-cutoff"))
        let g = try LaneGeometry(lane)
        let ramp = try XCTUnwrap(lane.find { $0.classes.contains("ramp") && $0["data-line"] == "2" }.first)
        let p = points(try XCTUnwrap(ramp["d"]))
        XCTAssertGreaterThan(p.count, 10, "sampled, not just its ends")
        XCTAssertEqual(p.first!.x, g.x(2), accuracy: 0.02)
        XCTAssertEqual(p.last!.x, g.x(3.5), accuracy: 0.02)
        // From Warm's 384 Hz up to 800 Hz: x moves right and y up (smaller) at every point.
        for (a, b) in zip(p, p.dropFirst()) {
            XCTAssertGreaterThan(b.x, a.x)
            XCTAssertLessThanOrEqual(b.y, a.y)
        }
        XCTAssertGreaterThan(p.first!.y, p.last!.y)
        // The exponential ramp is a straight line on the log axis: its middle is halfway in y.
        let mid = p[p.count / 2]
        let expected = p.first!.y + (p.last!.y - p.first!.y) * (mid.x - p.first!.x) / (p.last!.x - p.first!.x)
        XCTAssertEqual(mid.y, expected, accuracy: 0.05)
    }

    func testTheCutoffLaneDraws800HzAtItsLogarithmicPosition() throws {
        let svg = try parseSVG(TimelinePlot.svg(timeline(session)))
        let lane = try XCTUnwrap(svg.first(id: "lane-cutoff"))
        let g = try LaneGeometry(lane)
        XCTAssertEqual(g.minimum, Parameters[.cutoff].minimum)
        XCTAssertEqual(g.maximum, Parameters[.cutoff].maximum)
        let expected = g.bottom - (g.bottom - g.top) * log(800 / g.minimum) / log(g.maximum / g.minimum)
        // The hold after the ramp (3.5 s … 6 s) sits at 800 Hz.
        let hold = try XCTUnwrap(lane.find { $0.classes.contains("hold") && $0["data-line"] == "2" }.first)
        let p = points(try XCTUnwrap(hold["d"]))
        XCTAssertEqual(p.first!.x, g.x(3.5), accuracy: 0.02)
        for q in p { XCTAssertEqual(q.y, expected, accuracy: 0.01) }
    }

    func testRampsFollowTheEnginesRampShape() {
        let t = timeline(session)
        let cutoff = t.tracks.first { $0.id == .cutoff }!
        let ramp = cutoff.segments.first { $0.kind == .ramp && $0.line == 2 }!
        for q in ramp.points {
            // Exponential from 384 to 800 Hz over 2 … 3.5 s.
            let expected = 384 * pow(800.0 / 384, (q.time - 2) / 1.5)
            XCTAssertEqual(q.value, expected, accuracy: expected * 1e-9)
        }
        let mix = t.tracks.first { $0.id == .mix }!
        let mixRamp = mix.segments.first { $0.kind == .ramp && $0.line == 3 }!
        for q in mixRamp.points {
            XCTAssertEqual(q.value, 40 + (80 - 40) * (q.time - 4) / 0.5, accuracy: 1e-9)
        }
    }

    func testTheScheduleIsTheEnginesOwn() {
        let text = session + "\n9 /rack/cutoff 2000\n9.5 /rack/room cathedral 0.15\n10 /rack/player/play\n"
        let automation = Automation.parse(text, presetNames: Set(factoryPresets.all.map(\.name)),
                                          presetAtIndex: { factoryPresets.preset(index: $0)?.name })
        for rate in [44_100.0, 48_000] {
            for length: Int64? in [nil, Int64(7 * rate)] {
                let mine = Timeline.schedule(automation, sampleRate: rate, presetState: { factoryPresets.preset(named: $0)?.state },
                                             lengthFrames: length)
                    .map { EngineEvent(sampleTime: $0.sampleTime, .set($0.parameter, $0.value, ramp: $0.ramp)) }
                let engine = automation.engineEvents(sampleRate: rate, presets: factoryPresets, lengthFrames: length)
                    .filter { $0.action.parameterChange != nil }
                XCTAssertEqual(mine, engine)
            }
        }
    }

    func testStartingValuesAreTheParameterTableDefaults() throws {
        let t = timeline("# nothing happens\n")
        for track in t.tracks {
            XCTAssertEqual(track.segments.count, 1)
            XCTAssertTrue(track.segments[0].points.allSatisfy { $0.value == track.spec.defaultValue })
        }
        XCTAssertEqual(t.rooms.map(\.room.rawValue), [Int(Parameters[.room].defaultValue)])
        XCTAssertGreaterThanOrEqual(t.duration, 1)
        _ = try parseSVG(TimelinePlot.svg(t))
    }

    func testARoomChangeIsAStepWithTheRoomsName() throws {
        let svg = try parseSVG(TimelinePlot.svg(timeline(session)))
        let lane = try XCTUnwrap(svg.first(id: "lane-room"))
        let changes = lane.find { $0.classes.contains("room-change") }
        XCTAssertEqual(changes.map { $0["data-room"] }, ["plate"])
        XCTAssertEqual(changes.first?["data-time"], "5")
        XCTAssertTrue(changes.first!.find { $0.classes.contains("room-name") }.contains { $0.text == "plate" })
        // Bright's room is plate already: the recall does not change the room.
        XCTAssertEqual(lane.find { $0.classes.contains("room-span") }.count, 2)
    }

    func testAnErrorLineGetsARedMarkerAtItsTimeAndTheRestIsStillDrawn() throws {
        let text = """
            0.0 /rack/preset Warm
            1.0 /rack/cutoff 800 1
            2.5 /rack/mix loud
            3.0 /rack/gain 30
            4 /rack/mix 10 1
            """
        let t = timeline(text)
        XCTAssertEqual(t.errorCount, 1)
        XCTAssertEqual(t.warningCount, 1)
        let svg = try parseSVG(TimelinePlot.svg(t))
        let marker = try XCTUnwrap(svg.find { $0.classes.contains("problem") && $0["data-line"] == "3" }.first)
        XCTAssertTrue(marker.classes.contains("error"))
        XCTAssertEqual(marker["data-time"], "2.5")
        XCTAssertTrue(marker["data-message"]?.contains("loud") == true)
        XCTAssertTrue(marker.find { $0.name == "rect" }.contains { $0["fill"] == Palette.problem }, "a red badge")
        let g = try LaneGeometry(try XCTUnwrap(svg.first(id: "lane-mix")))
        let lines = svg.find { $0.classes.contains("problem-line") && $0["stroke"] == Palette.problem }
        XCTAssertTrue(lines.contains { abs(Double($0["x1"]!)! - g.x(2.5)) < 0.02 && $0["x1"] == $0["x2"] },
                      "a red vertical line at 2.5 s")
        XCTAssertTrue(svg.find { $0.classes.contains("problem-list") }.first!.all.contains { $0.text.contains("line 3") && $0.text.contains("loud") })
        // The lines that parse are drawn.
        XCTAssertFalse(try XCTUnwrap(svg.first(id: "lane-cutoff")).find { $0.classes.contains("ramp") && $0["data-line"] == "2" }.isEmpty)
        XCTAssertFalse(try XCTUnwrap(svg.first(id: "lane-mix")).find { $0.classes.contains("ramp") && $0["data-line"] == "5" }.isEmpty)
        let warning = try XCTUnwrap(svg.find { $0.classes.contains("problem") && $0["data-line"] == "4" }.first)
        XCTAssertTrue(warning.classes.contains("warning"))
    }

    func testManyProblemsKeepThePictureASensibleSize() throws {
        let text = (0..<300).map { "\($0) /rack/nothing 1" }.joined(separator: "\n")
        let t = timeline(text)
        XCTAssertEqual(t.errorCount, 300)
        let svg = try parseSVG(TimelinePlot.svg(t))
        XCTAssertEqual(svg.find { $0.classes.contains("problem") }.count, 300, "every problem is marked")
        let quiet = try parseSVG(TimelinePlot.svg(timeline("# nothing\n")))
        let lanesHeight = try XCTUnwrap(quiet["height"].flatMap(Double.init))
        XCTAssertLessThan(try XCTUnwrap(svg["height"].flatMap(Double.init)), lanesHeight + 900, "the list under the plot is cut short")
        XCTAssertTrue(svg.all.contains { $0.text.contains("260 more") })
    }

    func testAnUnreadableTimeIsShownAtThePreviousLinesTime() {
        let t = timeline("1.5 /rack/mix 20\nsoon /rack/mix 30\n")
        let p = t.problems.first { $0.line == 2 }!
        XCTAssertEqual(p.time, 1.5)
        XCTAssertFalse(p.timeIsExact)
    }

    func testTheEndOfTheInputIsMarkedAndLaterEventsAreLeftOut() throws {
        let t = timeline("1 /rack/mix 20\n6 /rack/mix 90\n", length: 5)
        XCTAssertEqual(t.duration, 6.5, accuracy: 1.6)
        XCTAssertEqual(t.tracks.first { $0.id == .mix }!.changes.map(\.value), [20], "the event at 6 s is past the end")
        XCTAssertEqual(t.warningCount, 1)
        let svg = try parseSVG(TimelinePlot.svg(t))
        XCTAssertEqual(svg.find { $0.classes.contains("end-of-input") }.first?["data-time"], "5")
    }

    func testTextIsEscaped() throws {
        let t = timeline("0 /rack/<mix> 1 & \"2\"\n", name: "a<b>&\"c\".txt")
        let svg = try parseSVG(TimelinePlot.svg(t))
        XCTAssertEqual(svg.find { $0.classes.contains("title") }.first?.text, "rack plot — a<b>&\"c\".txt")
        XCTAssertEqual(xmlEscape("x\u{1}y<"), "x\u{FFFD}y&lt;")
    }
}

final class ResponsePlotTests: XCTestCase {
    func testTheGainAtTheCutoffIsTheResonance() {
        for (fc, res) in [(1000.0, 12.0), (384, -3), (2500, 5), (14_000, 12)] {
            XCTAssertEqual(FilterResponse.magnitudeDecibels(frequency: fc, cutoff: fc, resonance: res, sampleRate: 48_000),
                           res, accuracy: 1e-9)
        }
        // Everywhere: H(s) = 1/(s² + s/Q + 1), bilinear with prewarp at the cutoff.
        for (fc, res, fs) in [(2000.0, -3.0103, 48_000.0), (384, -3, 44_100), (14_000, 12, 48_000), (50, 20, 96_000)] {
            let q = pow(10, res / 20)
            for f in [10.0, 100, 1000, 5000, 12_000, 19_000] {
                let w = tan(Double.pi * f / fs) / tan(Double.pi * fc / fs)
                let expected = -10 * log10((1 - w * w) * (1 - w * w) + (w / q) * (w / q))
                XCTAssertEqual(FilterResponse.magnitudeDecibels(frequency: f, cutoff: fc, resonance: res, sampleRate: fs),
                               expected, accuracy: 1e-6, "\(f) Hz, cutoff \(fc), \(res) dB, \(fs) Hz")
            }
        }
        // Far below the cutoff: 0 dB; Butterworth two octaves above: about −24 dB (12 dB/octave).
        XCTAssertEqual(FilterResponse.magnitudeDecibels(frequency: 20, cutoff: 2000, resonance: -3.0103, sampleRate: 48_000), 0, accuracy: 0.01)
        XCTAssertEqual(FilterResponse.magnitudeDecibels(frequency: 8000, cutoff: 2000, resonance: -3.0103, sampleRate: 48_000), -24.5, accuracy: 1.5)
    }

    func testTheCurvePeaksNearTheCutoffAtTheResonanceForPlus12dB() throws {
        let svg = try parseSVG(ResponsePlot.svg(curves: [ResponseCurveSpec(name: "test", cutoff: 1000, resonance: 12)], sampleRate: 48_000))
        let plot = try XCTUnwrap(svg.first(id: "response-plot"))
        func d(_ k: String) throws -> Double { try XCTUnwrap(plot[k].flatMap(Double.init)) }
        let (left, right, top, bottom) = (try d("data-left"), try d("data-right"), try d("data-top"), try d("data-bottom"))
        let (fmin, fmax, dbmin, dbmax) = (try d("data-fmin"), try d("data-fmax"), try d("data-dbmin"), try d("data-dbmax"))
        XCTAssertEqual([fmin, fmax, dbmin, dbmax], [10, 20_000, -40, 24])
        let curve = try XCTUnwrap(svg.first(id: "response-0")?.find { $0.classes.contains("curve") }.first)
        let p = points(try XCTUnwrap(curve["d"]))
        XCTAssertGreaterThan(p.count, 200)
        let peak = p.min { $0.y < $1.y }!
        let f = fmin * pow(fmax / fmin, (peak.x - left) / (right - left))
        let db = dbmin + (dbmax - dbmin) * (bottom - peak.y) / (bottom - top)
        XCTAssertEqual(f, 1000, accuracy: 50, "peak near the cutoff")
        XCTAssertEqual(db, 12, accuracy: 0.3, "peak at the resonance")
        // The curve starts at 0 dB.
        XCTAssertEqual(dbmin + (dbmax - dbmin) * (bottom - p.first!.y) / (bottom - top), 0, accuracy: 0.05)
        // The cutoff is marked.
        let marker = try XCTUnwrap(svg.first(id: "response-0")?.find { $0.classes.contains("cutoff-marker") }.first)
        let fx = fmin * pow(fmax / fmin, (Double(marker["x1"]!)! - left) / (right - left))
        XCTAssertEqual(fx, 1000, accuracy: 1)
    }

    func testSeveralPresetsGetAColourAndALegendEntryEach() throws {
        let curves = ["Warm", "Bright", "Prominent"].map { name -> ResponseCurveSpec in
            let s = factoryPresets.preset(named: name)!.state
            return ResponseCurveSpec(name: name, cutoff: s[.cutoff], resonance: s[.resonance])
        }
        let svg = try parseSVG(ResponsePlot.svg(curves: curves, sampleRate: 48_000))
        let groups = svg.find { $0.classes.contains("response") }
        XCTAssertEqual(groups.map { $0["data-name"] }, ["Warm", "Bright", "Prominent"])
        let colours = groups.map { $0.find { $0.classes.contains("curve") }.first!["stroke"]! }
        XCTAssertEqual(Set(colours).count, 3)
        let legend = svg.find { $0.classes.contains("legend-entry") }.map(\.text)
        XCTAssertEqual(legend.count, 3)
        XCTAssertTrue(legend[0].hasPrefix("Warm") && legend[0].contains("384 Hz"), legend[0])
    }
}

final class PlotOutputTests: XCTestCase {
    var directory: String!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("rack-plot-tests")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testTheExtensionChoosesTheFormatAndAnUnknownOneIs73() throws {
        XCTAssertEqual(try PlotFormat.of("a/b.SVG"), .svg)
        XCTAssertEqual(try PlotFormat.of("b.png"), .png)
        for bad in ["b.pdf", "b", "b.svg.gz"] {
            XCTAssertThrowsError(try PlotFormat.of(bad)) { XCTAssertEqual(($0 as? RackError)?.status, .cannotCreate) }
        }
    }

    func testPNGWithoutTheConverterIs69WithAHint() {
        XCTAssertThrowsError(try PlotWriter.prepare("x.png", environment: ["PATH": directory])) {
            let e = $0 as? RackError
            XCTAssertEqual(e?.status, .unavailable)
            XCTAssertTrue(e?.message.contains("rsvg-convert") == true && e?.message.contains("librsvg2-bin") == true)
            XCTAssertFalse(e?.message.contains("\n") ?? true)
        }
        XCTAssertEqual(try? PlotWriter.prepare("x.svg", environment: ["PATH": directory]).0, .svg)
    }

    func testFilesAreWrittenWholeAndNothingElseIsLeft() throws {
        let svg = TimelinePlot.svg(timeline("0 /rack/mix 10 1\n"))
        let path = directory + "/t.svg"
        try PlotWriter.write(svg: svg, to: path, format: .svg, converter: nil)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), svg)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["t.svg"])
        XCTAssertThrowsError(try PlotWriter.write(svg: svg, to: directory + "/missing/t.svg", format: .svg, converter: nil)) {
            XCTAssertEqual(($0 as? RackError)?.status, .cannotCreate)
        }
    }

    func testPNGIsConvertedWithRsvgConvert() throws {
        guard let converter = PlotWriter.findConverter() else { throw XCTSkip("rsvg-convert is not installed (librsvg2-bin)") }
        let path = directory + "/r.png"
        try PlotWriter.write(svg: ResponsePlot.svg(curves: [ResponseCurveSpec(name: "x", cutoff: 500, resonance: 3)], sampleRate: 48_000),
                             to: path, format: .png, converter: converter)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // Width from the IHDR chunk: the SVG's 1000 px.
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        XCTAssertEqual(width, 1000)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["r.png"])
        // A converter that fails leaves nothing behind.
        XCTAssertThrowsError(try PlotWriter.write(svg: "<svg", to: directory + "/bad.png", format: .png, converter: converter)) {
            XCTAssertEqual(($0 as? RackError)?.status, .cannotCreate)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["r.png"])
    }
}
