import Foundation

/// The web control surface's files, compiled into rack: nothing is read from disk, and nothing
/// outside this table is ever served. The files live beside this one in `web/` as the page's
/// own `.html`, `.css` and `.js`; SwiftPM embeds them into the binary at build time
/// (`PackageResources`, the target's `embedInCode` resources), so the `rack` binary carries its
/// page when it is installed alone.
enum PageAssets {
    struct Asset: Sendable {
        let contentType: String
        let text: String
    }

    /// Where the page lives (the README documents it).
    static let basePath = "/ui/"

    /// Each served file: its request paths, its name in `web/`, its type and what it is.
    struct File: Sendable {
        let paths: [String]
        let name: String
        let contentType: String
        let bytes: [UInt8]
    }

    static let html = "text/html; charset=utf-8"
    static let javascript = "text/javascript; charset=utf-8"

    /// The files in `web/`:
    /// - index.html: static structure only. The parameter sections (one per `GROUP` of the
    ///   namespace, with their faders, switches and choices) and the pictures are built by
    ///   controls.js from the OSCQuery namespace and `/ui/pictures.json`.
    /// - style.css: cards that flow into as many columns as the width allows (one on a phone,
    ///   two or three on a desktop), large touch targets; greyed out while rack is away.
    /// - app.js: the WebSocket to rack (reconnecting with backoff, the page greyed out while rack
    ///   cannot be reached, everything reloaded when it is back), pushed messages routed to whoever
    ///   shows them, and actions whose outcome is told beside the control that caused them.
    /// - osc.js: OSC 1.0 messages in the browser (binary WebSocket frames both ways).
    /// - controls.js: the parameter sections and pictures, built from the namespace; faders send
    ///   `/rack/<param>/norm` and follow the positions rack pushes, so the page holds no copy of
    ///   the taper maths.
    /// - panels.js: presets, the player, meters and status, each showing what rack pushes.
    /// - graph.js: the filter's response as a control (a handle at cutoff and resonance), drawn
    ///   from the filter's magnitude formula with the facts of `/ui/graphs.json` (`PageGraphs`).
    /// - decay.js: the reverb's decay as a control (handles at decay, damping, low and high cut).
    /// - racks.js: "Racks in this studio", over a WebSocket of its own (LISTEN `/studio`).
    /// - icon.svg: a small icon, so the browser does not ask for a favicon rack does not have.
    static let files: [File] = [
        File(paths: ["/ui/", "/ui/index.html"], name: "index.html", contentType: html, bytes: PackageResources.index_html),
        File(paths: ["/ui/app.js"], name: "app.js", contentType: javascript, bytes: PackageResources.app_js),
        File(paths: ["/ui/racks.js"], name: "racks.js", contentType: javascript, bytes: PackageResources.racks_js),
        File(paths: ["/ui/osc.js"], name: "osc.js", contentType: javascript, bytes: PackageResources.osc_js),
        File(paths: ["/ui/controls.js"], name: "controls.js", contentType: javascript, bytes: PackageResources.controls_js),
        File(paths: ["/ui/panels.js"], name: "panels.js", contentType: javascript, bytes: PackageResources.panels_js),
        File(paths: ["/ui/graph.js"], name: "graph.js", contentType: javascript, bytes: PackageResources.graph_js),
        File(paths: ["/ui/decay.js"], name: "decay.js", contentType: javascript, bytes: PackageResources.decay_js),
        File(paths: ["/ui/style.css"], name: "style.css", contentType: "text/css; charset=utf-8", bytes: PackageResources.style_css),
        File(paths: ["/ui/icon.svg"], name: "icon.svg", contentType: "image/svg+xml", bytes: PackageResources.icon_svg),
    ]

    /// What the files say in place of a figure that is rack's own (replaced when served): the
    /// WebSocket keep-alive interval in milliseconds (`HTTPLimits.webSocketKeepAliveSeconds`).
    static let substitutions: [(token: String, value: String)] = [
        ("__RACK_KEEPALIVE_MS__", String(HTTPLimits.webSocketKeepAliveSeconds * 1000)),
    ]

    /// A file's text as served: its bytes with the substitutions made.
    static func served(_ file: File) -> String {
        substitutions.reduce(String(decoding: file.bytes, as: UTF8.self)) { text, s in
            text.replacingOccurrences(of: s.token, with: s.value)
        }
    }

    /// The assets by request path, made once.
    static let table: [String: Asset] = Dictionary(uniqueKeysWithValues: files.flatMap { file in
        let asset = Asset(contentType: file.contentType, text: served(file))
        return file.paths.map { ($0, asset) }
    })

    /// The asset at a request path, or nil.
    static func asset(at path: String) -> Asset? { table[path] }
}
