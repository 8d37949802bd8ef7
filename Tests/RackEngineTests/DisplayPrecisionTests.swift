import Foundation
import XCTest
@testable import RackEngine
@testable import RackFiles

/// Every number rack shows a person or writes to a file is rounded to its parameter's
/// precision (`ParameterSpec.precision`, through `ParameterSpec.format`); presets written with
/// full precision still load as they are.
final class DisplayPrecisionTests: XCTestCase {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func testEachPrecisionRoundsAsDocumented() {
        XCTAssertEqual(DisplayPrecision.hertz.rounded(3529.4117647058824), 3529)
        XCTAssertEqual(DisplayPrecision.hertz.rounded(2941.1764705882356), 2941)
        XCTAssertEqual(DisplayPrecision.hertz.rounded(12.345), 12.3, "never finer than 0.1 Hz")
        XCTAssertEqual(DisplayPrecision.hertz.rounded(384.44), 384.4)
        XCTAssertEqual(DisplayPrecision.hertz.rounded(19_996), 20_000, "4 significant digits")
        XCTAssertEqual(DisplayPrecision.tenths.rounded(89.99999761581421), 90)
        XCTAssertEqual(DisplayPrecision.tenths.rounded(-1.84), -1.8)
        XCTAssertEqual(DisplayPrecision.hundredths.rounded(1.8049), 1.8)
        XCTAssertEqual(DisplayPrecision.whole.rounded(0.6), 1)
        XCTAssertEqual(DisplayPrecision.hertz.rounded(0), 0)
    }

    func testFormatWritesTheRoundedValueWithoutNoise() {
        let damping = Parameters[.damping]
        XCTAssertEqual(damping.format(damping.defaultValue), "3529")
        XCTAssertEqual(damping.format(2941.1764705882356), "2941")
        XCTAssertEqual(Parameters[.mix].format(Double(Float(89.9))), "89.9")
        XCTAssertEqual(Parameters[.decay].format(1.0 / 3), "0.33")
        XCTAssertEqual(Parameters[.predelay].format(12.345), "12.3")
        XCTAssertEqual(Parameters[.gain].format(-3), "-3")
        for spec in Parameters.all where spec.taper != .choice {
            for x in stride(from: 0.0, through: 1.0, by: 0.01) {
                let text = spec.format(spec.value(normalized: x))
                let fraction = text.split(separator: ".").dropFirst().first ?? ""
                XCTAssertLessThanOrEqual(fraction.count, spec.precision.decimals, "\(spec.name) \(text)")
            }
        }
    }

    func testAPresetStoresRoundedValuesAndAnOlderFullPrecisionOneLoadsAsItIs() throws {
        var state = RackState()
        state[.damping] = 2941.1764705882356
        state[.mix] = Double(Float(89.9))
        let json = Preset(name: "Rounded", state: state, isFactory: false).json
        XCTAssertTrue(json.contains("\"damping\": 2941,\n"), json)
        XCTAssertTrue(json.contains("\"mix\": 89.9,\n"), json)

        let old = json.replacingOccurrences(of: "\"damping\": 2941,", with: "\"damping\": 2941.1764705882356,")
        let loaded = try Preset.parse(Data(old.utf8), isFactory: false, path: nil)
        XCTAssertEqual(loaded.state[.damping], 2941.1764705882356, accuracy: 1e-9, "full precision from an older version is kept")
    }

    /// The generated man page and LV2 Turtle hold no number with more decimals than a
    /// parameter shows (4 at most: none has more than 2).
    func testTheGeneratedFilesHoldNoNoisyNumbers() throws {
        for path in ["share/man/man1/rack.1", "share/lv2/rack.lv2/rack.ttl", "share/lv2/rack.lv2/presets.ttl"] {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            let noisy = text.range(of: #"[0-9]\.[0-9]{5,}"#, options: .regularExpression).map { String(text[$0]) }
            XCTAssertNil(noisy, "\(path) holds \(noisy ?? "")")
        }
    }
}
