import XCTest
import RackEngine
@testable import RackOSC
import RackWire
import RackTestSupport

/// One `/rack/meter i PORT` from a remote address is not amplified beyond its short lease: the
/// README's figures of what reaches the address in 20 s.
final class RemoteMeterTests: XCTestCase {
    /// The README's "N datagrams, B bytes, in 20 s" for one remote meter request.
    func readmeFigures() throws -> (datagrams: Int, bytes: Int) {
        let readme = try Documentation.text()
        let pattern = #/one 20-byte `/rack/meter i PORT` from a remote address now brings \*\*(\d+) datagrams, ([\d,]+) bytes\*\* in 20 s/#
        let m = try XCTUnwrap(readme.firstMatch(of: pattern), "the README states what one remote meter request brings")
        return (Int(m.1)!, Int(m.2.replacing(",", with: ""))!)
    }

    func testOneRemoteMeterRequestBringsTheREADMEsFiguresIn20Seconds() throws {
        let rig = Rig()
        let remote = OSCEndpoint(host: "192.0.2.1", port: 9000)!
        let request = OSCMessage("/rack/meter", [.int(9001)]).encoded()
        XCTAssertEqual(request.count, 20)
        rig.send(request, from: remote)
        let start = rig.now
        while rig.now < start + 20 {
            rig.now += 1 / ControllerTuning.meterHz
            rig.render()
            rig.controller.tick(now: rig.now)
        }
        let sent = rig.outbox.sent.filter { $0.to.address == remote.address }
        let bytes = sent.map { $0.message.encoded().count }.reduce(0, +)
        print("one remote meter request: \(sent.count) datagrams, \(bytes) bytes in 20 s")
        let figures = try readmeFigures()
        XCTAssertEqual(sent.count, figures.datagrams)
        XCTAssertEqual(bytes, figures.bytes)
        XCTAssertEqual(Double(sent.count), ExposurePolicy.defaultMeterLeaseSeconds * ControllerTuning.meterHz, accuracy: 1,
                       "meters for the lease, at their rate")
    }

    func testARemoteMeterLeaseIsTheShorterOfTheTwo() {
        XCTAssertEqual(ExposurePolicy().meterLeaseSeconds, ExposurePolicy.defaultMeterLeaseSeconds)
        XCTAssertLessThan(ExposurePolicy.defaultMeterLeaseSeconds, ExposurePolicy.defaultLeaseSeconds)
        XCTAssertEqual(ExposurePolicy(leaseSeconds: 1).meterLeaseSeconds, 1)
    }
}
