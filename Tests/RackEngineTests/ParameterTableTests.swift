import XCTest
import RackDSP
@testable import RackEngine

final class ParameterTableTests: XCTestCase {
    func testTableMatchesTheContract() {
        let cutoff = Parameters[.cutoff]
        XCTAssertEqual([cutoff.minimum, cutoff.maximum, cutoff.defaultValue], [12, 20_000, 20_000])
        XCTAssertEqual(Parameters[.resonance].defaultValue, 0)
        XCTAssertEqual(Parameters[.mix].defaultValue, 50)
        XCTAssertEqual([Parameters[.gain].minimum, Parameters[.gain].maximum], [-60, 12])
        XCTAssertEqual(Parameters[.room].format(Parameters[.room].defaultValue), "mediumHall")
        XCTAssertEqual(Parameters[.room].choices.count, 13)
        for spec in Parameters.all where spec.taper != .choice { XCTAssertEqual(spec.defaultRampSeconds, 0.02) }
        XCTAssertLessThanOrEqual(Parameters[.room].maximumRampSeconds, 0.2)
        XCTAssertEqual(Parameters.all.map(\.id), ParameterID.allCases)
    }

    func testNormalizedCutoffIsLogarithmic() {
        let c = Parameters[.cutoff]
        XCTAssertEqual(c.value(normalized: 0), 12)
        XCTAssertEqual(c.value(normalized: 1), 20_000, accuracy: 1e-9)
        XCTAssertEqual(c.value(normalized: 0.5), (12 * 20_000.0).squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(c.normalized(c.value(normalized: 0.3)), 0.3, accuracy: 1e-12)
        XCTAssertEqual(Parameters[.mix].value(normalized: 0.25), 25)
    }

    func testClamp() {
        XCTAssertEqual(Parameters[.cutoff].clamp(30_000), 20_000)
        XCTAssertEqual(Parameters[.gain].clamp(-100), -60)
        XCTAssertEqual(Parameters[.room].clamp(3.4), 3)
    }
}
