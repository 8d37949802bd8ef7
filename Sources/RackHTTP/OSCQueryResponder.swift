import RackEngine

import Foundation
import HTTPTypes
import Hummingbird

/// Answers every HTTP request: the OSCQuery namespace and its attributes, `?HOST_INFO`, and the
/// web page's embedded assets. Nothing here reads the file system: a path is either a node of the
/// namespace, one of the assets compiled into rack, or 404. Only GET and HEAD are served (no
/// request over HTTP changes anything; changes travel over the Origin-checked WebSocket).
struct OSCQueryResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let state: LiveState
    let info: HostInfoSource
    let rules: ExposureRules
    /// The page's pictures, each drawn by its own worker: a request is answered with the latest
    /// drawing and never draws.
    let pictures: [PictureWorker]

    func respond(to request: Request, context: Context) async throws -> Response {
        let response = answer(request)
        return request.method == .head ? response.createHeadResponse() : response
    }

    /// The response to `request`, errors included (never throws: bad input gets a status code).
    func answer(_ request: Request) -> Response {
        let authority = request.head.authority
        guard rules.acceptsHost(authority) else { return Self.error(.forbidden, "unknown Host") }
        if request.headers[.upgrade] != nil {
            // A WebSocket upgrade reaches here only when it was refused.
            if !rules.acceptsOrigin(request.headers[.origin], authority: authority) {
                return Self.error(.forbidden, "WebSocket from a foreign Origin refused")
            }
            return Self.error(.badRequest, "not a WebSocket upgrade rack accepts")
        }
        guard request.method == .get || request.method == .head else {
            var r = Self.error(.methodNotAllowed, "only GET and HEAD")
            r.headers[.allow] = "GET, HEAD"
            return r
        }
        // A request with a body has been answered 413 by `StrictRequests` before this.
        let target = request.uri.string
        guard target.utf8.count <= HTTPLimits.maximumTargetBytes else { return Self.error(.uriTooLong, "request target too long") }
        let path = request.uri.path
        if let asset = PageAssets.asset(at: path) {
            return Self.page(asset, authority: authority ?? "")
        }
        if let picture = PagePictures.picture(at: path), let worker = pictures.first(where: { $0.picture.name == picture.name }) {
            guard let drawing = worker.latest else {
                var r = Self.error(.serviceUnavailable, "the picture is being drawn; its version is pushed when it is ready")
                r.headers[.retryAfter] = "1"
                return r
            }
            // The version the page was pushed as its ETag, and how long the drawing took.
            var r = Self.page(PageAssets.Asset(contentType: "image/svg+xml", text: drawing.svg), authority: authority ?? "")
            r.headers[.eTag] = "\"\(drawing.version)\""
            r.headers[.init("Server-Timing")!] = "draw;dur=" + String(format: "%.1f", drawing.seconds * 1000)
            return r
        }
        if path == PageAssets.basePath + "pictures.json" {
            return Self.page(PageAssets.Asset(contentType: "application/json", text: PagePictures.manifest.text),
                             authority: authority ?? "")
        }
        if path == PageGraphs.path { return Self.page(PageAssets.Asset(contentType: "application/json", text: PageGraphs.json.text), authority: authority ?? "") }
        if path == "/ui" { return Response(status: .movedPermanently, headers: [.location: "/ui/"]) }
        if path == StudioDirectory.path { return Self.json(state.studio.json) }
        return namespaceAnswer(path: path, query: request.uri.query, authority: authority ?? "")
    }

    /// `GET PATH`, `GET PATH?ATTRIBUTE`, `GET /?HOST_INFO`.
    func namespaceAnswer(path: String, query: String?, authority: String) -> Response {
        let snapshot = state.snapshot()
        if query == "HOST_INFO" {
            // Bound to every address (0.0.0.0): tell the client the address it reached rack by.
            var host = info.info
            let reached = ExposureRules.hostPart(authority)
            if host.oscHost == "0.0.0.0" { host.oscHost = reached }
            if host.httpHost == "0.0.0.0" { host.httpHost = reached }
            return Self.json(host.json)
        }
        let root = OSCQueryNamespace.root(presetNames: snapshot.presetNames)
        guard path.hasPrefix("/"), let node = root.find(path) else { return Self.error(.notFound, "no such node") }
        guard let query, !query.isEmpty else { return Self.json(node.json(values: snapshot.values)) }
        guard OSCQueryNode.attributes.contains(query) else { return Self.error(.badRequest, "unknown attribute query") }
        guard let value = node.attribute(query, values: snapshot.values) else {
            // The proposal: 204 when the node has no such attribute (VALUE of a write-only method).
            return Response(status: .noContent)
        }
        return Self.json(.object([(query, value)]))
    }

    // MARK: - Responses

    static func json(_ value: JSON) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store",
                                        .init("X-Content-Type-Options")!: "nosniff"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: value.text)))
    }

    static func error(_ status: HTTPResponse.Status, _ text: String, close: Bool = false) -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"]
        if close { headers[.connection] = "close" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    /// An embedded asset, with a policy that lets it load only from rack itself.
    static func page(_ asset: PageAssets.Asset, authority: String) -> Response {
        Response(status: .ok, headers: [
            .contentType: asset.contentType,
            .cacheControl: "no-cache",
            .init("X-Content-Type-Options")!: "nosniff",
            .init("X-Frame-Options")!: "DENY",
            .init("Referrer-Policy")!: "no-referrer",
            .contentSecurityPolicy: "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                + "connect-src 'self' ws://\(authority); base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        ], body: ResponseBody(byteBuffer: ByteBuffer(string: asset.text)))
    }
}

/// `/?HOST_INFO`: who rack is and where its OSC and WebSocket live.
struct HostInfo: Sendable {
    var name: String
    var oscHost: String
    var oscPort: Int
    var httpHost: String
    var httpPort: Int

    var json: JSON {
        let yes = ["ACCESS", "VALUE", "RANGE", "DESCRIPTION", "TAGS", "UNIT", "CLIPMODE", "LISTEN"]
        let no = ["EXTENDED_TYPE", "CRITICAL", "HTML", "PATH_CHANGED", "PATH_RENAMED", "PATH_ADDED", "PATH_REMOVED"]
        return .object([
            ("NAME", .string(name)),
            ("OSC_IP", .string(oscHost)),
            ("OSC_PORT", .number(Double(oscPort))),
            ("OSC_TRANSPORT", .string("UDP")),
            ("EXTENSIONS", .object(yes.map { ($0, .bool(true)) } + no.map { ($0, .bool(false)) })),
            ("WS_IP", .string(httpHost)),
            ("WS_PORT", .number(Double(httpPort))),
        ])
    }
}
