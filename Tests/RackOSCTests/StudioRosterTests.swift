import XCTest
@testable import RackOSC
import RackWire

/// What DNS-SD results become a rack of the studio list, and how the list is bounded (the
/// daemon side is the live test's, test_studio.py).
final class StudioRosterTests: XCTestCase {
    private func rack(_ name: String, address: String = "10.0.0.2", port: Int = 8001) -> StudioRack {
        StudioRack(name: name, host: "b.local", address: address, port: port, pagePath: "/ui/")!
    }

    func testARackIsRecognisedByItsTXTStringAndItsPageURLIsBuiltFromTheAddress() throws {
        let r = try XCTUnwrap(StudioRack(name: "fx", host: "studio-b.local", address: "10.79.23.2", port: 8001, pagePath: "/ui/"))
        XCTAssertEqual(r.pageURL, "http://10.79.23.2:8001/ui/")
        XCTAssertNil(StudioRack(name: "touchosc", host: "a.local", address: "10.0.0.1", port: 8001, pagePath: nil),
                     "an OSCQuery server without rack's TXT string is not a rack")
    }

    /// A name with a bidi override (U+202E) showed reversed text on the page: such characters
    /// are taken out of names and hosts; one made of nothing else is refused.
    func testInvisibleFormatCharactersAreTakenOut() throws {
        let r = try XCTUnwrap(StudioRack(name: "fx\u{202E}gpj.exe\u{200B}", host: "b\u{2066}.local\u{2028}", address: "10.0.0.1",
                                         port: 8001, pagePath: "/ui/"))
        XCTAssertEqual(r.name, "fxgpj.exe")
        XCTAssertEqual(r.host, "b.local")
        XCTAssertEqual(StudioRack(name: "Café 東京", host: "h.local", address: "10.0.0.1", port: 80, pagePath: "/ui/")?.name, "Café 東京")
        XCTAssertNil(StudioRack(name: "\u{202E}\u{FEFF}", host: "h.local", address: "10.0.0.1", port: 80, pagePath: "/ui/"))
    }

    func testUnusableResultsAreRefused() {
        let bad: [(String, String, String, Int, String)] = [
            ("", "h.local", "10.0.0.1", 80, "/ui/"),                                      // no name
            (String(repeating: "n", count: 64), "h.local", "10.0.0.1", 80, "/ui/"),       // name over 63 bytes
            ("fx", "", "10.0.0.1", 80, "/ui/"),                                           // no host
            ("fx\n", "h.local", "10.0.0.1", 80, "/ui/"),                                  // control character
            ("fx", "h.local", "fe80::1", 80, "/ui/"),                                     // not IPv4
            ("fx", "h.local", "10.0.0.1", 0, "/ui/"),                                     // port 0
            ("fx", "h.local", "10.0.0.1", 70000, "/ui/"),                                 // port over 65535
            ("fx", "h.local", "10.0.0.1", 80, "ui/"),                                     // not a path
            ("fx", "h.local", "10.0.0.1", 80, "/\"><script>"),                            // escapes the link
            ("fx", "h.local", "10.0.0.1", 80, "/ui/?x=1"),                                // a query
            ("fx", "h.local", "10.0.0.1", 80, "/" + String(repeating: "a", count: 64)),   // path over 64 bytes
        ]
        for (name, host, address, port, path) in bad {
            XCTAssertNil(StudioRack(name: name, host: host, address: address, port: port, pagePath: path), "\(name) \(address) \(port) \(path)")
        }
    }

    func testFoundAndLostPerInterfaceAndEachRackListedOnceByName() {
        var roster = StudioRoster()
        roster.apply(.found(interface: 2, rack: rack("zeta"), local: false))
        roster.apply(.found(interface: 3, rack: rack("zeta"), local: false))   // the same rack on another link
        roster.apply(.found(interface: 2, rack: rack("alpha", address: "10.0.0.3"), local: false))
        XCTAssertEqual(roster.racks.map(\.name), ["alpha", "zeta"])
        roster.apply(.lost(interface: 2, name: "zeta"))
        XCTAssertEqual(roster.racks.map(\.name), ["alpha", "zeta"], "still seen on interface 3")
        roster.apply(.lost(interface: 3, name: "zeta"))
        XCTAssertEqual(roster.racks.map(\.name), ["alpha"])
        roster.apply(.found(interface: 2, rack: rack("alpha", address: "10.0.0.3", port: 8002), local: false))
        XCTAssertEqual(roster.racks.map(\.httpPort), [8002], "announced again: the newer port replaces the older")
        roster.apply(.allLost)
        XCTAssertEqual(roster.racks, [])
    }

    func testRackItselfIsLeftOutButAnotherRackOfTheSameMachineIsNot() {
        var roster = StudioRoster(ownName: "rack")
        roster.apply(.found(interface: 2, rack: rack("rack"), local: true))
        roster.apply(.found(interface: 2, rack: rack("rack #2"), local: true))
        roster.apply(.found(interface: 3, rack: rack("rack", address: "10.0.0.9"), local: false))   // another machine's "rack"
        XCTAssertEqual(roster.racks.map(\.name), ["rack", "rack #2"])
        XCTAssertEqual(roster.racks.first?.address, "10.0.0.9")
        roster.ownName = "rack #3"   // renamed after a collision
        XCTAssertEqual(roster.racks.count, 3)
    }

    func testAFloodIsCappedAndTheCapFreesAsRacksGo() {
        XCTAssertEqual(StudioRoster.defaultCapacity, 64, "the README's figure")
        XCTAssertEqual(StudioBrowser.maximumResolving, 16, "the README's figure")
        var roster = StudioRoster()
        for i in 0..<5000 {
            roster.apply(.found(interface: 2, rack: rack("r\(i)", port: 1000 + i), local: false))
        }
        XCTAssertEqual(roster.racks.count, 64)
        XCTAssertEqual(roster.waitingCount, 64, "as many again wait")
        XCTAssertEqual(roster.leftOut, 5000 - 64 - 64)
        roster.apply(.found(interface: 2, rack: rack("r0", port: 999), local: false))
        XCTAssertEqual(roster.racks.first { $0.name == "r0" }?.httpPort, 999, "a listed rack is updated when full")
        roster.apply(.lost(interface: 2, name: "r1"))
        XCTAssertEqual(roster.leftOut, 0)
        XCTAssertEqual(roster.racks.count, 64)
        XCTAssertTrue(roster.racks.contains { $0.name == "r64" }, "the first waiting rack is listed")
        XCTAssertEqual(roster.waitingCount, 63)
    }
}
