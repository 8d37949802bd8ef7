/// The web control surface's files, compiled into rack: nothing is read from disk, and nothing
/// outside this table is ever served.
enum PageAssets {
    struct Asset: Sendable {
        let contentType: String
        let text: String
    }

    /// Where the page lives (the README documents it).
    static let basePath = "/ui/"

    /// The asset at a request path, or nil.
    static func asset(at path: String) -> Asset? {
        switch path {
        case "/ui/", "/ui/index.html": Asset(contentType: "text/html; charset=utf-8", text: pageHTML)
        case "/ui/app.js": Asset(contentType: "text/javascript; charset=utf-8", text: pageScript)
        case "/ui/racks.js": Asset(contentType: "text/javascript; charset=utf-8", text: pageRacksScript)
        case "/ui/osc.js": Asset(contentType: "text/javascript; charset=utf-8", text: pageOSCScript)
        case "/ui/controls.js": Asset(contentType: "text/javascript; charset=utf-8", text: pageControlsScript)
        case "/ui/panels.js": Asset(contentType: "text/javascript; charset=utf-8", text: pagePanelsScript)
        case "/ui/style.css": Asset(contentType: "text/css; charset=utf-8", text: pageStyle)
        case "/ui/icon.svg": Asset(contentType: "image/svg+xml", text: pageIcon)
        default: nil
        }
    }
}

/// A small icon, so the browser does not ask for a favicon rack does not have.
let pageIcon = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1c2330"/><path d="M3 12V4m5 8V6m5 6V3" stroke="#6fc3ff" stroke-width="2" stroke-linecap="round"/></svg>
"""#
