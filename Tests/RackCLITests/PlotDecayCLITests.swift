import Foundation
import XCTest
import RackIO
import RackTestSupport

/// `rack plot --decay` from the command line: its points are the decay the engine renders. An
/// impulse goes through `rack render` at mix 100 % with the same preset; the rendered file's
/// T30 per octave band (`octaveT30`, independent of the plot's filters) matches each point
/// within ±10 %.
final class PlotDecayCLITests: XCTestCase {
    let bands = [125.0, 250, 500, 1_000, 2_000, 4_000, 8_000]

    func testTheDecayPlotIsTheRenderedDecayPerOctave() throws {
        let dir = try makeTemporaryDirectory("rack-plot-decay")
        let env = ["XDG_CONFIG_HOME": dir + "/config"]
        let rate = 48_000.0
        var impulse = [Float](repeating: 0, count: Int(0.1 * rate))
        impulse[0] = 0.5
        let writer = try AudioFileWriter(path: dir + "/impulse.wav", sampleRate: rate, format: .float)
        try impulse.withUnsafeBufferPointer { try writer.write(left: $0.baseAddress!, right: $0.baseAddress!, frames: $0.count) }
        try writer.commit(durable: false)

        for preset in ["Small Room", "Vocal Plate"] {
            let plot = try rack(["plot", "--decay", "--preset", preset, "-o", dir + "/decay.svg"], environment: env)
            XCTAssertEqual(plot.status, 0, plot.stderr)
            let svg = try String(contentsOfFile: dir + "/decay.svg", encoding: .utf8)
            let points = Self.points(svg)
            XCTAssertEqual(points.map(\.hz), bands, preset)

            let render = try rack(["render", dir + "/impulse.wav", dir + "/ir.wav", "--preset", preset, "--set", "mix=100",
                                   "--tail", "4", "--format", "float"], environment: env)
            XCTAssertEqual(render.status, 0, render.stderr)
            let ir = try readAll(dir + "/ir.wav")
            let measured = octaveT30(left: ir.left, right: ir.right, sampleRate: rate, centresHz: bands)
            for (point, t30) in zip(points, measured) {
                let expected = try XCTUnwrap(t30, "\(preset) \(point.hz) Hz")
                XCTAssertEqual(point.seconds, expected, accuracy: 0.10 * expected, "\(preset) \(point.hz) Hz")
            }
        }
    }

    func testDecayIsItsOwnPlot() throws {
        let dir = try makeTemporaryDirectory("rack-plot-decay")
        for (args, fragment) in [(["--decay", "--response"], "choose one"), (["--decay", "x.txt"], "leave out 'x.txt'"),
                                 (["--decay", "--length", "3"], "--length is for timelines, not --decay")] {
            let r = try rack(["plot"] + args + ["-o", dir + "/d.svg"])
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(fragment), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
        let unknown = try rack(["plot", "--decay", "--preset", "Nowhere", "-o", dir + "/d.svg"])
        XCTAssertEqual(unknown.status, 65, unknown.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/d.svg"))
    }

    /// The plot's points: band centre and T30 of each `class="band"` circle, in order.
    static func points(_ svg: String) -> [(hz: Double, seconds: Double)] {
        let pattern = try! NSRegularExpression(pattern: #"class="band" data-hz="([0-9.]+)" data-seconds="([0-9.e+-]+)""#)
        return pattern.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)).compactMap { m in
            guard let hz = Range(m.range(at: 1), in: svg).flatMap({ Double(svg[$0]) }),
                  let s = Range(m.range(at: 2), in: svg).flatMap({ Double(svg[$0]) }) else { return nil }
            return (hz, s)
        }
    }
}
