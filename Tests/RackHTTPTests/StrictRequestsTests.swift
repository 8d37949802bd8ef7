import NIOHTTP1
@testable import RackHTTP
import XCTest

final class StrictRequestsTests: XCTestCase {
    let rules = ExposureRules(machineNames: ["studio"])

    func head(_ uri: String = "/", _ fields: [(String, String)] = [("Host", "127.0.0.1:8001")],
              version: HTTPVersion = .http1_1) -> HTTPRequestHead {
        HTTPRequestHead(version: version, method: .GET, uri: uri, headers: HTTPHeaders(fields))
    }

    func testAPlainRequestIsTaken() {
        XCTAssertNil(StrictRequests.refusal(of: head(), rules: rules))
        XCTAssertNil(StrictRequests.refusal(of: head("http://127.0.0.1:8001/rack/gain?VALUE"), rules: rules))
        XCTAssertNil(StrictRequests.refusal(of: head("/", [("Host", "x"), ("Content-Length", "0")]), rules: rules))
    }

    func testTwoHostLinesAForeignAbsoluteTargetAndABodyAreRefused() {
        XCTAssertEqual(StrictRequests.refusal(of: head("/", [("Host", "127.0.0.1"), ("Host", "evil.example")]), rules: rules)?.status,
                       .badRequest)
        XCTAssertEqual(StrictRequests.refusal(of: head("http://evil.example/rack"), rules: rules)?.status, .forbidden)
        XCTAssertEqual(StrictRequests.refusal(of: head("/", [("Host", "x"), ("Content-Length", "5")]), rules: rules)?.status,
                       .payloadTooLarge)
        XCTAssertEqual(StrictRequests.refusal(of: head("/", [("Host", "x"), ("Transfer-Encoding", "chunked")]), rules: rules)?.status,
                       .payloadTooLarge)
    }

    func testTheAuthorityOfAnAbsoluteFormTarget() {
        XCTAssertEqual(StrictRequests.absoluteFormAuthority("http://studio.local:8001/ui/?x"), "studio.local:8001")
        XCTAssertEqual(StrictRequests.absoluteFormAuthority("https://evil.example?q"), "evil.example")
        XCTAssertNil(StrictRequests.absoluteFormAuthority("/a://b"))
        XCTAssertNil(StrictRequests.absoluteFormAuthority("/"))
    }

    func testOnlyHTTP10ClosesAfterTheResponse() {
        XCTAssertTrue(StrictRequests.closesAfterResponse(head(version: .http1_0)))
        XCTAssertFalse(StrictRequests.closesAfterResponse(head(version: .http1_1)))
    }
}
