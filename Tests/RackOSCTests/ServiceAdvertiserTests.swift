import Glibc
import XCTest
@testable import RackOSC
import RackWire

/// What `ServiceAdvertiser` advertises where (the daemon side is the live test's).
final class ServiceAdvertiserTests: XCTestCase {
    func testLoopbackSocketsAreNotAdvertised() throws {
        let loopback = try XCTUnwrap(OSCEndpoint(host: "127.0.0.1", port: 8001))
        let alsoLoopback = try XCTUnwrap(OSCEndpoint(host: "127.0.0.2", port: 8000))
        XCTAssertNil(ServiceAdvertiser(name: "rack", http: loopback, osc: alsoLoopback) { _ in XCTFail("no event") })
        XCTAssertNil(ServiceAdvertiser(name: "rack", http: nil, osc: nil) { _ in XCTFail("no event") })
    }

    func testAnAddressIsFoundOnItsInterface() throws {
        let loopback = try XCTUnwrap(OSCEndpoint(host: "127.0.0.1", port: 0))
        XCTAssertEqual(ServiceAdvertiser.interfaceIndex(holding: loopback.address), Int32(if_nametoindex("lo")))
        let nowhere = try XCTUnwrap(OSCEndpoint(host: "192.0.2.77", port: 0))   // TEST-NET-1
        XCTAssertNil(ServiceAdvertiser.interfaceIndex(holding: nowhere.address))
    }
}
