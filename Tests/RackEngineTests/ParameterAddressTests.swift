import XCTest
@testable import RackEngine

final class ParameterAddressTests: XCTestCase {
    func testEveryParameterParsesAndPrintsBack() {
        for spec in Parameters.all {
            let plain = ParameterAddress(parsing: "/rack/" + spec.name)
            XCTAssertEqual(plain, ParameterAddress(spec.id))
            XCTAssertEqual(plain?.isNormalized, false)
            XCTAssertEqual(plain?.path, spec.address)
            let norm = ParameterAddress(parsing: "/rack/" + spec.name + "/norm")
            if spec.taper == .choice {
                XCTAssertNil(norm, "\(spec.name) is a choice: no /norm address")
            } else {
                XCTAssertEqual(norm, ParameterAddress(spec.id, normalized: true))
                XCTAssertEqual(norm?.path, spec.address + "/norm")
            }
        }
    }

    func testOtherAddressesAreNotParameters() {
        for address in ["/rack/preset", "/rack/player/play", "/rack/cutoffs", "/rack/cutoff/", "/rack/cutoff/norm/",
                        "/rack/cutoff/nrm", "/rack//cutoff", "rack/cutoff", "/Rack/cutoff", "/rack", "", "/ping"] {
            XCTAssertNil(ParameterAddress(parsing: address), address)
        }
    }

    func testRampLimitComesFromTheTable() {
        XCTAssertEqual(Parameters.longestRampSeconds, Parameters.all.map(\.maximumRampSeconds).max())
        XCTAssertNil(ParameterSpec.rampProblem(Parameters.longestRampSeconds))
        XCTAssertEqual(ParameterSpec.rampProblem(Parameters.longestRampSeconds.nextUp), "ramp time must be at most 3600 s")
    }
}
