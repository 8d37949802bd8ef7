import XCTest
@testable import RackOSC
import RackWire

/// The studio list is complete: announcements that come while every resolve place is busy wait
/// and are resolved as places free, and a rack withdrawn from a full list lets a waiting one in.
/// An in-memory network stands in for the Avahi daemon: it answers resolves in the order they
/// were started, and the browser's two parts (`ResolveQueue`, `StudioRoster`) are driven as
/// `StudioBrowser` drives them.
final class StudioDiscoveryTests: XCTestCase {
    typealias Key = ResolveQueue<String>.Key

    /// The browser's state and an in-memory network of announced racks.
    struct Twin {
        var resolves = ResolveQueue<String>(places: StudioBrowser.maximumResolving,
                                            maximumWaiting: StudioBrowser.maximumWaitingResolves)
        var roster = StudioRoster()
        /// Resolves under way, oldest first.
        var underWay: [String] = []

        mutating func announce(_ name: String) {
            if let now = resolves.announced(Key(interface: 2, name: name), name) { underWay.append(now) }
        }

        /// The network answers the oldest resolve under way (RACK_AVAHI_FOUND, then
        /// RACK_AVAHI_RESOLVE_ENDED); false when none is under way.
        mutating func answerOne() -> Bool {
            guard !underWay.isEmpty else { return false }
            let name = underWay.removeFirst()
            roster.apply(.found(interface: 2, rack: StudioRack(name: name, host: "b.local", address: "10.0.0.2",
                                                               port: 8001, pagePath: "/ui/")!, local: false))
            if let next = resolves.ended(Key(interface: 2, name: name)) { underWay.append(next) }
            return true
        }

        mutating func answerAll() { while answerOne() {} }

        mutating func withdraw(_ name: String) {
            resolves.withdrawn(Key(interface: 2, name: name))
            roster.apply(.lost(interface: 2, name: name))
        }
    }

    func testAnnouncementsBeyondTheResolvePlacesWaitAndAreAllListed() {
        XCTAssertEqual(StudioBrowser.maximumWaitingResolves, 128, "the README's figure")
        var twin = Twin()
        let count = StudioRoster.defaultCapacity   // up to the list's capacity
        for i in 0..<count { twin.announce("r\(i)") }
        XCTAssertEqual(twin.underWay.count, StudioBrowser.maximumResolving, "16 resolved at once")
        XCTAssertEqual(twin.resolves.waitingCount, count - StudioBrowser.maximumResolving, "the rest wait, none dropped")
        twin.answerAll()
        XCTAssertEqual(twin.roster.racks.count, count, "every announced rack is listed")
        XCTAssertEqual(twin.resolves.resolving, [])
    }

    func testAWithdrawnRackOfAFullListLetsAWaitingOneIn() {
        var twin = Twin()
        let capacity = StudioRoster.defaultCapacity
        for i in 0..<(capacity + 10) { twin.announce("r\(i)") }
        twin.answerAll()
        XCTAssertEqual(twin.roster.racks.count, capacity)
        XCTAssertEqual(twin.roster.waitingCount, 10)
        let listed = Set(twin.roster.racks.map(\.name))
        twin.withdraw("r3")
        XCTAssertEqual(twin.roster.racks.count, capacity, "a waiting rack took its place")
        let newcomer = Set(twin.roster.racks.map(\.name)).subtracting(listed)
        XCTAssertEqual(newcomer, ["r\(capacity)"], "the first found of the waiting")
        twin.withdraw("r\(capacity + 1)")   // a waiting one withdrawn never comes in
        for i in 0..<8 { twin.withdraw("r\(10 + i)") }   // the 8 still waiting come in
        XCTAssertFalse(twin.roster.racks.contains { $0.name == "r\(capacity + 1)" })
        XCTAssertEqual(twin.roster.racks.count, capacity, "the other waiting ones came in")
        XCTAssertEqual(twin.roster.waitingCount, 0)
    }

    func testAWithdrawnAnnouncementStopsWaitingAndAFloodIsBounded() {
        var twin = Twin()
        for i in 0..<5000 { twin.announce("r\(i)") }
        XCTAssertEqual(twin.resolves.waitingCount, StudioBrowser.maximumWaitingResolves)
        XCTAssertEqual(twin.resolves.leftOut, 5000 - StudioBrowser.maximumResolving - StudioBrowser.maximumWaitingResolves)
        twin.withdraw("r\(StudioBrowser.maximumResolving)")   // the first waiting
        XCTAssertEqual(twin.resolves.waitingCount, StudioBrowser.maximumWaitingResolves - 1)
        twin.answerAll()
        XCTAssertFalse(twin.roster.racks.contains { $0.name == "r\(StudioBrowser.maximumResolving)" })
        XCTAssertEqual(twin.roster.racks.count, StudioRoster.defaultCapacity)
    }

    /// A resolve that ended after the daemon went (its place was already given back) frees no
    /// second place.
    func testAnEndAfterTheDaemonWentFreesNothing() {
        var queue = ResolveQueue<String>(places: 1, maximumWaiting: 4)
        XCTAssertEqual(queue.announced(Key(interface: 2, name: "a"), "a"), "a")
        queue.reset()
        XCTAssertEqual(queue.announced(Key(interface: 2, name: "b"), "b"), "b")
        XCTAssertNil(queue.announced(Key(interface: 2, name: "c"), "c"))
        XCTAssertNil(queue.ended(Key(interface: 2, name: "a")), "a's end is stale")
        XCTAssertEqual(queue.ended(Key(interface: 2, name: "b")), "c")
    }
}
