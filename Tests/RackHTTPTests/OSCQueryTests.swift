import Foundation
import XCTest
import NIOHTTP1
import RackEngine
@testable import RackHTTP
import RackWire

/// The OSCQuery namespace from the parameter table, the Host/Origin rules, and the wire forms.
final class OSCQueryTests: XCTestCase {
    func testEveryParameterOfTheTableIsANodeWithItsRangeAndUnit() throws {
        let root = OSCQueryNamespace.root(presetNames: ["Warm", "Bright"])
        for spec in Parameters.all {
            let node = try XCTUnwrap(root.find(spec.address), spec.name)
            XCTAssertEqual(node.access, 3)
            XCTAssertEqual(node.tags, [spec.taper.rawValue])
            XCTAssertTrue(node.children.isEmpty, "a method is not a container too")
            if spec.taper == .choice {
                XCTAssertEqual(node.range, [.object([("VALS", .array(spec.choices.map(JSON.string)))])])
                XCTAssertEqual(spec.choices.count, 13)
            } else {
                XCTAssertEqual(node.range, [.object([("MIN", .number(spec.minimum)), ("MAX", .number(spec.maximum))])])
            }
        }
        XCTAssertEqual(root.find("/rack/preset")?.range, [.object([("VALS", .array([.string("Warm"), .string("Bright")]))])])
        XCTAssertNil(root.find("/rack/cutoff/norm"))
        XCTAssertNil(root.find("/etc/passwd"))
        XCTAssertNotNil(root.find("/rack/"), "a trailing slash names the same node")
    }

    func testValuesComeFromTheLiveState() {
        let state = LiveState()
        state.publish(Parameters[.cutoff], value: 800)
        state.publish(Parameters[.room], value: 5)
        let root = OSCQueryNamespace.root(presetNames: [])
        let values = state.snapshot().values
        XCTAssertEqual(root.find("/rack/cutoff")?.attribute("VALUE", values: values), .array([.number(800)]))
        XCTAssertEqual(root.find("/rack/room")?.attribute("VALUE", values: values), .array([.string(Parameters[.room].choices[5])]))
        XCTAssertNil(root.find("/rack/dump")?.attribute("VALUE", values: values), "a method without a value has none")
    }

    func testEveryParameterCarriesItsGroup() throws {
        let root = OSCQueryNamespace.root(presetNames: [])
        for spec in Parameters.all {
            let node = try XCTUnwrap(root.find(spec.address))
            XCTAssertEqual(node.attribute("GROUP", values: [:]), .string(spec.group.rawValue), spec.name)
        }
        XCTAssertNil(root.find("/rack/dump")?.group, "a command has no group")
        XCTAssertTrue(OSCQueryNode.attributes.contains("GROUP"))
    }

    func testAParameterValueAlsoPublishesItsControlPosition() {
        let state = LiveState()
        state.publish("/rack/cutoff", [.float(Parameters[.cutoff].value(normalized: 0.25))])
        guard case let .float(position)? = state.snapshot().values["/rack/cutoff/norm"]?.first else {
            return XCTFail("no /norm value")
        }
        XCTAssertEqual(position, 0.25, accuracy: 1e-12)
        state.publish("/rack/room", [.string("plate")])
        XCTAssertNil(state.snapshot().values["/rack/room/norm"], "a choice has no control position")
        XCTAssertEqual(WebSocketSession.listenable("/rack/cutoff/norm", presetNames: []), "/rack/cutoff/norm")
        XCTAssertNil(WebSocketSession.listenable("/rack/room/norm", presetNames: []))
        XCTAssertNil(WebSocketSession.listenable("/rack/nothing", presetNames: []))
        state.setPresetNames(["Warm", "Mine"])
        XCTAssertEqual(state.snapshot().values["/rack/preset/list"], [.string("Warm"), .string("Mine")])
    }

    func testPicturesAreDrawnFromTheLiveValues() throws {
        let state = LiveState()
        state.publish(Parameters[.cutoff], value: 800)
        state.publish(Parameters[.resonance], value: 12)
        let picture = try XCTUnwrap(PagePictures.picture(at: "/ui/picture/response.svg"))
        let svg = PagePictures.svg(picture, snapshot: state.snapshot())
        XCTAssertTrue(svg.contains("data-cutoff=\"800\"") && svg.contains("data-resonance=\"12\""))
        XCTAssertNil(PagePictures.picture(at: "/ui/picture/../response.svg"))
        XCTAssertNil(PagePictures.picture(at: "/ui/picture/response"))
        for p in PagePictures.all {
            XCTAssertFalse(p.parameters.isEmpty, p.name)
        }
        let manifest = PagePictures.manifest.text
        XCTAssertTrue(manifest.contains("\"/ui/picture/response.svg\"") && manifest.contains("\"/rack/cutoff\""), manifest)
        XCTAssertTrue(manifest.contains("\"/ui/picture/decay.svg\"") && manifest.contains("\"/rack/damping\"")
                      && manifest.contains("\"version\":\"/ui/picture/decay\""), manifest)
    }

    func testHostAndOriginRules() {
        let rules = ExposureRules(machineNames: ["studio", "studio.local"])
        for ok in ["127.0.0.1:8001", "localhost:8001", "[::1]:8001", "192.168.1.20", "studio.local:8001", "STUDIO:8001"] {
            XCTAssertTrue(rules.acceptsHost(ok), ok)
        }
        for bad in [nil, "", "attacker.example:8001", "127.0.0.1.attacker.example", "a b", "studio.local.evil:1"] {
            XCTAssertFalse(rules.acceptsHost(bad), bad ?? "nil")
        }
        XCTAssertTrue(rules.acceptsOrigin(nil, authority: "127.0.0.1:8001"), "not a browser")
        XCTAssertTrue(rules.acceptsOrigin("http://127.0.0.1:8001", authority: "127.0.0.1:8001"))
        XCTAssertFalse(rules.acceptsOrigin("http://evil.example", authority: "127.0.0.1:8001"))
        XCTAssertFalse(rules.acceptsOrigin("http://127.0.0.1:8002", authority: "127.0.0.1:8001"))
        XCTAssertFalse(rules.acceptsOrigin("null", authority: "127.0.0.1:8001"))
    }

    func testUpgradeGateRefusesForeignOriginsAndHostsOnly() {
        let rules = ExposureRules(machineNames: ["studio"])
        func refusal(_ fields: [(String, String)]) -> String? {
            UpgradeGate.refusal(of: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: HTTPHeaders(fields)), rules: rules)
        }
        let upgrade = [("Upgrade", "websocket"), ("Connection", "Upgrade")]
        let own = ("Host", "127.0.0.1:8001")
        XCTAssertNil(refusal([("Host", "evil.example"), ("Origin", "http://evil.example")]), "not an upgrade: the responder answers it")
        XCTAssertNil(refusal([own] + upgrade), "no Origin: not a browser")
        XCTAssertNil(refusal([own, ("Origin", "http://127.0.0.1:8001")] + upgrade), "the page's own origin")
        XCTAssertNil(refusal([("Host", "studio:8001"), ("Origin", "http://STUDIO:8001")] + upgrade))
        let foreign = "WebSocket from a foreign Origin refused"
        XCTAssertEqual(refusal([own, ("Origin", "http://evil.example")] + upgrade), foreign)
        XCTAssertEqual(refusal([own, ("Origin", "http://127.0.0.1:8002")] + upgrade), foreign)
        XCTAssertEqual(refusal([own, ("Origin", "http://127.0.0.1:8001"), ("Origin", "http://127.0.0.1:8001")] + upgrade), foreign,
                       "two Origin lines are no page's own")
        XCTAssertEqual(refusal([("Host", "evil.example:8001"), ("Origin", "http://evil.example:8001")] + upgrade), "unknown Host")
        XCTAssertEqual(refusal([own, own] + upgrade), "unknown Host")
        XCTAssertEqual(refusal(upgrade), "unknown Host")
    }

    func testOSCWireAndJSON() {
        XCTAssertEqual(OSCMessage("/a", [LiveValue.float(1), .int(-2), .string("xy")].map(\.osc)).encoded(),
                       Array("/a\0\0,fis\0\0\0\0".utf8) + [0x3f, 0x80, 0, 0, 0xff, 0xff, 0xff, 0xfe] + Array("xy\0\0".utf8))
        XCTAssertEqual(JSON.object([("a", .string("\"</script>\n")), ("b", .number(0.5)), ("c", .number(.nan))]).text,
                       #"{"a":"\"\u003c/script>\n","b":0.5,"c":null}"#)
        XCTAssertEqual(JSON.quoted("a<b\u{1}"), #""a<b\u0001""#, "files and messages keep '<'")
    }

    func testConnectionBudget() {
        let budget = ConnectionBudget(allow: { $0.hostOrderAddress != 0x0a00_0001 }, maximumTotal: 5, maximumPerAddress: 2,
                                      trustedReserve: 1)
        let remote = HTTPPeer(address: UInt32(0xc000_0207).bigEndian, port: 1)
        let local = HTTPPeer(address: UInt32(0x7f00_0001).bigEndian, port: 1)
        XCTAssertFalse(budget.admit(HTTPPeer(address: UInt32(0x0a00_0001).bigEndian, port: 1)), "--allow")
        XCTAssertTrue(budget.admit(remote) && budget.admit(remote))
        XCTAssertFalse(budget.admit(remote), "two per remote address")
        XCTAssertTrue(budget.admit(local) && budget.admit(local) && budget.admit(local))
        XCTAssertFalse(budget.admit(local), "five in all")
        budget.release(remote)
        XCTAssertTrue(budget.admit(remote))
    }

    func testAMalformedFirstRequestIsAnswered431ForHeaderOverflowAnd400Otherwise() {
        XCTAssertEqual(MalformedRequestAnswer.status(of: .headerOverflow), .requestHeaderFieldsTooLarge)
        for error: HTTPParserError in [.invalidMethod, .invalidURL, .unexpectedContentLength, .invalidConstant] {
            XCTAssertEqual(MalformedRequestAnswer.status(of: error), .badRequest, "\(error)")
        }
    }
}

/// OSCQuery's namespace and the declared address space agree: every published command is a
/// node with its declared description and type, every node is a parameter, a container or a
/// published command, and a method's `TYPE` is arguments its signature takes.
final class OSCQueryAddressSpaceTests: XCTestCase {
    func testTheNamespaceIsTheDeclaredAddressSpace() {
        let root = OSCQueryNamespace.root(presetNames: ["Warm"])
        var paths: [String] = []
        func walk(_ node: OSCQueryNode) { paths.append(node.path); node.children.forEach(walk) }
        walk(root)
        XCTAssertEqual(paths.count, Set(paths).count)
        let published = OSCAddressSpace.commands.filter { $0.query != nil }
        let expected = Set(published.map(\.address) + Parameters.all.map(\.address) + OSCAddressSpace.containers.map(\.path))
        XCTAssertEqual(Set(paths), expected)
        for declaration in published {
            let node = root.find(declaration.address)
            XCTAssertEqual(node?.path, declaration.address)
            XCTAssertEqual(node?.description, declaration.summary)
            XCTAssertEqual(node?.type, declaration.query?.type, declaration.address)
            guard let node, node.access == 0, let type = node.type else { continue }
            let kinds: [OSCArgumentKind?] = type.map { $0 == "s" ? .string : "ifdh".contains($0) ? .number : nil }
            XCTAssertNil(declaration.signature.refusal(kinds), "\(declaration.address) TYPE \(type) vs \(declaration.signature.notation)")
        }
        XCTAssertNil(root.find("/rack/midi"), "MIDI learn is not published")
    }
}

/// `GET /studio` and its WebSocket push: the racks DNS-SD shows, as the page reads them.
final class StudioDirectoryTests: XCTestCase {
    func testTheListAsJSONAndAsAPushOnListenAndOnEveryChange() async throws {
        let directory = StudioDirectory()
        XCTAssertEqual(directory.json.text, #"{"browsing":false,"daemon":false,"capacity":64,"racks":[]}"#)
        let (pushes, queue) = AsyncStream<Outgoing>.makeStream(bufferingPolicy: .bufferingNewest(8))
        directory.setListening(7, queue: queue, true)
        directory.setBrowsing(true)
        let fx = try XCTUnwrap(StudioRack(name: "fx \"b\"", host: "b.local", address: "10.79.23.2", port: 8001, pagePath: "/ui/"))
        directory.publish([fx])
        XCTAssertEqual(directory.json.text,
                       #"{"browsing":true,"daemon":false,"capacity":64,"racks":[{"name":"fx \"b\"","host":"b.local","address":"10.79.23.2","port":8001,"url":"http://10.79.23.2:8001/ui/"}]}"#)
        directory.setListening(7, queue: queue, false)
        directory.publish([])
        queue.finish()
        var texts: [String] = []
        for await case let .text(t) in pushes { texts.append(t) }
        XCTAssertEqual(texts.count, 3, "at LISTEN, browsing on, one rack; nothing after IGNORE")
        XCTAssertTrue(texts[0].hasPrefix(#"{"COMMAND":"RACKS","DATA":{"browsing":false"#), texts[0])
        XCTAssertTrue(texts[2].contains(#""url":"http://10.79.23.2:8001/ui/""#), texts[2])
    }

    /// `daemon` says whether an Avahi daemon answers: false until the browser hears one.
    func testTheDaemonsStateIsPartOfTheList() {
        let directory = StudioDirectory()
        directory.setBrowsing(true)
        XCTAssertTrue(directory.json.text.hasPrefix(#"{"browsing":true,"daemon":false,"#), directory.json.text)
        directory.setDaemon(running: true)
        XCTAssertTrue(directory.json.text.hasPrefix(#"{"browsing":true,"daemon":true,"#), directory.json.text)
        directory.setDaemon(running: false)
        XCTAssertTrue(directory.json.text.hasPrefix(#"{"browsing":true,"daemon":false,"#), directory.json.text)
    }

    func testTheEndpointAnswersAndThePageLoadsItsScript() {
        XCTAssertNotNil(PageAssets.asset(at: "/ui/racks.js"))
        XCTAssertTrue(PageAssets.asset(at: "/ui/")!.text.contains(#"<script src="/ui/racks.js" defer></script>"#))
        XCTAssertTrue(PageAssets.asset(at: "/ui/racks.js")!.text.contains(StudioDirectory.path))
    }
}
