import Foundation
import XCTest
import RackDSP
import RackEngine
import RackTestSupport
@testable import RackPlot

/// `rack plot --decay`: the points are the kernel's own T30 per octave band, measured here
/// independently (a different band filter: two RBJ band-pass biquads, Q = √2; the test's own
/// Schroeder fit) from the impulse response of `Reverb`; the filter the plot measures with is
/// checked against its design (IEC 61260 octave band, 3rd-order Butterworth).
final class DecayPlotTests: XCTestCase {
    /// The octave filter: 0 dB at the centre, −3 dB at both band edges (f_c/√2, f_c·√2), and
    /// the 3rd-order Butterworth band-pass's −18.2 dB an octave beyond each edge
    /// (|H|² = 1/(1 + Ω⁶) at the prototype frequency Ω of that point), measured with sines.
    func testTheOctaveFilterIsAThirdOrderButterworthBand() {
        let rate = 48_000.0
        for centre in [125.0, 1_000, 8_000] {
            let band = OctaveBand(centreHz: centre, sampleRate: rate)
            XCTAssertEqual(Self.gainDecibels(band, hz: centre, rate: rate), 0, accuracy: 0.05, "\(centre) Hz")
            XCTAssertEqual(Self.gainDecibels(band, hz: centre / 2.0.squareRoot(), rate: rate), -3.01, accuracy: 0.05)
            XCTAssertEqual(Self.gainDecibels(band, hz: centre * 2.0.squareRoot(), rate: rate), -3.01, accuracy: 0.05)
            // The prototype frequency of f: Ω = (w² − w₀²)/(w·B), w prewarped.
            let beyond = centre * 2 * 2.0.squareRoot()
            let w = { (f: Double) in 2 * rate * tan(Double.pi * f / rate) }
            let (lo, hi) = (w(centre / 2.0.squareRoot()), w(centre * 2.0.squareRoot()))
            let omega = (w(beyond) * w(beyond) - lo * hi) / (w(beyond) * (hi - lo))
            let expected = -10 * log10(1 + pow(omega, 6))
            XCTAssertEqual(Self.gainDecibels(band, hz: beyond, rate: rate), expected, accuracy: 0.1, "\(centre) Hz")
        }
    }

    /// Steady-state gain (dB) of `band` for a sine at `hz`: output RMS over input RMS after the
    /// filter has settled.
    static func gainDecibels(_ band: OctaveBand, hz: Double, rate: Double) -> Double {
        let n = Int(rate)
        let x = (0..<n).map { Float(sin(2 * Double.pi * hz * Double($0) / rate)) }
        let y = band.filter(x)
        let settled = n / 2..<n
        let out = settled.reduce(0.0) { $0 + y[$1] * y[$1] }
        let input = settled.reduce(0.0) { $0 + Double(x[$1]) * Double(x[$1]) }
        return 10 * log10(out / input)
    }

    /// Each point of the plot is the T30 of that octave band of the kernel's impulse response,
    /// within ±10 % of this test's own measurement, for rooms of three sizes with their own
    /// values and with a damped, longer shape; the points sit where the axes put that value.
    func testThePointsAreTheKernelsMeasuredT30PerBand() throws {
        var damped = Room.mediumChamber.shape
        damped.decaySeconds = 2
        damped.dampingHz = 1_000
        let specs = [DecayCurveSpec(name: "small", room: .smallRoom, shape: Room.smallRoom.shape),
                     DecayCurveSpec(name: "hall", room: .mediumHall, shape: Room.mediumHall.shape),
                     DecayCurveSpec(name: "damped", room: .mediumChamber, shape: damped)]
        let rate = 48_000.0
        let svg = try parseSVG(DecayPlot.svg(curves: specs, sampleRate: rate))
        let plot = try XCTUnwrap(svg.first(id: "decay-plot"))
        let axes = try Self.axes(plot)
        for (i, spec) in specs.enumerated() {
            let curve = try XCTUnwrap(svg.first(id: "decay-\(i)"))
            XCTAssertEqual(curve["data-room"], spec.room.name)
            let points = curve.find { $0.classes.contains("band") }
            XCTAssertEqual(points.count, DecayResponse.bandCentresHz.count, spec.name)
            let measured = Self.octaveT30(room: spec.room, shape: spec.shape, rate: rate)
            for (point, (hz, expected)) in zip(points, zip(DecayResponse.bandCentresHz, measured)) {
                let seconds = try XCTUnwrap(point["data-seconds"].flatMap(Double.init))
                XCTAssertEqual(try XCTUnwrap(point["data-hz"].flatMap(Double.init)), hz)
                let t30 = try XCTUnwrap(expected, "\(spec.name) \(hz) Hz")
                XCTAssertEqual(seconds, t30, accuracy: 0.10 * t30, "\(spec.name) \(hz) Hz")
                XCTAssertEqual(try XCTUnwrap(point["cy"].flatMap(Double.init)), axes.y(seconds), accuracy: 0.6)
                XCTAssertEqual(try XCTUnwrap(point["cx"].flatMap(Double.init)), axes.x(hz), accuracy: 0.6)
            }
        }
        // The damped curve falls above its damping frequency; its marker is drawn at 1 kHz.
        let damping = try XCTUnwrap(svg.first(id: "decay-2")?.find { $0.classes.contains("damping-marker") }.first)
        XCTAssertEqual(try XCTUnwrap(damping["x1"].flatMap(Double.init)), axes.x(1_000), accuracy: 0.6)
        let dampedSeconds = try XCTUnwrap(svg.first(id: "decay-2")).find { $0.classes.contains("band") }
            .compactMap { $0["data-seconds"].flatMap(Double.init) }
        XCTAssertLessThan(dampedSeconds[5], 0.5 * dampedSeconds[2], "4 kHz vs 500 Hz: \(dampedSeconds)")
    }

    /// The legend names each curve's room, decay and damping; the title says what is measured.
    func testTheLegendAndTitleSayWhatIsDrawn() throws {
        var shape = Room.plate.shape
        shape.dampingHz = ReverbShape.dampingRange.upperBound
        let svg = try parseSVG(DecayPlot.svg(curves: [DecayCurveSpec(name: "Vocal Plate", room: .plate, shape: shape)],
                                             sampleRate: 48_000))
        let legend = svg.find { $0.classes.contains("legend-entry") }.map(\.text)
        XCTAssertEqual(legend, ["Vocal Plate — room plate, decay \(Format.trimmed(shape.decaySeconds, digits: 2)) s, damping off"])
        XCTAssertTrue(svg.find { $0.classes.contains("subtitle") }.first?.text.contains("T30") == true)
        XCTAssertTrue(svg.find { $0.classes.contains("damping-marker") }.isEmpty, "no marker when damping is off")
    }

    struct Axes {
        let left, right, top, bottom, fmin, fmax, smin, smax: Double
        func x(_ hz: Double) -> Double { left + (right - left) * log(hz / fmin) / log(fmax / fmin) }
        func y(_ s: Double) -> Double { bottom - (bottom - top) * log(s / smin) / log(smax / smin) }
    }

    /// The axes as the SVG states them.
    static func axes(_ plot: Node) throws -> Axes {
        func value(_ key: String) throws -> Double { try XCTUnwrap(plot[key].flatMap(Double.init), key) }
        return Axes(left: try value("data-left"), right: try value("data-right"), top: try value("data-top"),
                    bottom: try value("data-bottom"), fmin: try value("data-fmin"), fmax: try value("data-fmax"),
                    smin: try value("data-smin"), smax: try value("data-smax"))
    }

    // MARK: The test's own measurement

    /// T30 per octave band (125 Hz … 8 kHz) of the kernel's impulse response, measured by
    /// `RackTestSupport.octaveT30` (RBJ band-passes, the test's own Schroeder fit).
    static func octaveT30(room: Room, shape: ReverbShape, rate: Double) -> [Double?] {
        var reverb = Reverb()
        reverb.prepare(sampleRate: rate, maxFrames: 1_024)
        reverb.setRoom(room, crossfadeFrames: 0)
        reverb.setShape(shape)
        let frames = Int((2.5 * shape.decaySeconds + 0.5) * rate)
        var left = [Float](repeating: 0, count: frames), right = left
        var impulse = [Float](repeating: 0, count: 1_024)
        impulse[0] = 1
        let silence = [Float](repeating: 0, count: 1_024)
        var done = 0
        while done < frames {
            let n = min(1_024, frames - done)
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    (done == 0 ? impulse : silence).withUnsafeBufferPointer { x in
                        reverb.process(inputLeft: x.baseAddress!, inputRight: x.baseAddress!,
                                       outputLeft: l.baseAddress! + done, outputRight: r.baseAddress! + done, frames: n)
                    }
                }
            }
            done += n
        }
        return RackTestSupport.octaveT30(left: left, right: right, sampleRate: rate, centresHz: DecayResponse.bandCentresHz)
    }
}
