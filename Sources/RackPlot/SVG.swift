import Foundation

/// Text for XML: markup characters become entities, and characters XML 1.0 cannot carry at all
/// (C0 controls other than tab, newline and return; U+FFFE, U+FFFF) become U+FFFD, so any file
/// name or message from a user still makes a well-formed document.
public func xmlEscape(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count + 8)
    for u in s.unicodeScalars {
        switch u {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        case "\t", "\n", "\r": out.unicodeScalars.append(u)
        default:
            if u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF {
                out.unicodeScalars.append("\u{FFFD}")
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out
}

/// A coordinate or value in SVG text: at most two decimals, no trailing zeros, never "-0".
func num(_ x: Double) -> String {
    guard x.isFinite else { return "0" }
    let r = (x * 100).rounded() / 100
    if r == r.rounded() { return String(Int64(r)) }
    var s = String(format: "%.2f", r)
    while s.hasSuffix("0") { s.removeLast() }
    return s
}

/// The width a line of text takes in DejaVu Sans / Helvetica-like fonts, estimated from
/// character classes (good to ~10 %: enough to keep labels apart).
func textWidth(_ s: String, size: Double, bold: Bool = false) -> Double {
    var em = 0.0
    for c in s.unicodeScalars {
        switch c {
        case "i", "l", "j", "t", "f", "r", ".", ",", ":", ";", "'", "|", "!", " ", "(", ")", "[", "]", "I":
            em += 0.34
        case "m", "w", "M", "W", "…", "—":
            em += 0.92
        case "A"..."Z":
            em += 0.70
        default:
            em += 0.60
        }
    }
    return em * size * (bold ? 1.12 : 1)
}

/// A tiny SVG writer: elements are appended as text; attributes are escaped here.
struct SVGDocument {
    let width: Double
    var height: Double
    private var body: [String] = []
    private var depth = 1

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Attributes in the given order; nil values are left out.
    private func attributes(_ attrs: [(String, String?)]) -> String {
        var s = ""
        for (k, v) in attrs { if let v { s += " \(k)=\"\(xmlEscape(v))\"" } }
        return s
    }

    private mutating func emit(_ line: String) {
        body.append(String(repeating: "  ", count: depth) + line)
    }

    mutating func open(_ name: String, _ attrs: [(String, String?)] = []) {
        emit("<\(name)\(attributes(attrs))>")
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        emit("</\(name)>")
    }

    mutating func element(_ name: String, _ attrs: [(String, String?)], text: String? = nil) {
        if let text {
            emit("<\(name)\(attributes(attrs))>\(xmlEscape(text))</\(name)>")
        } else {
            emit("<\(name)\(attributes(attrs))/>")
        }
    }

    /// A `<title>` child: the tooltip of its parent in a browser.
    mutating func title(_ text: String) { element("title", [], text: text) }

    mutating func rect(x: Double, y: Double, w: Double, h: Double, fill: String, stroke: String? = nil,
                       strokeWidth: Double? = nil, rx: Double? = nil, cls: String? = nil, extra: [(String, String?)] = []) {
        element("rect", [("x", num(x)), ("y", num(y)), ("width", num(max(0, w))), ("height", num(max(0, h))),
                         ("rx", rx.map(num)), ("fill", fill), ("stroke", stroke), ("stroke-width", strokeWidth.map(num)),
                         ("class", cls)] + extra)
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1,
                       dash: String? = nil, cls: String? = nil, opacity: Double? = nil) {
        element("line", [("x1", num(x1)), ("y1", num(y1)), ("x2", num(x2)), ("y2", num(y2)),
                         ("stroke", stroke), ("stroke-width", num(width)), ("stroke-dasharray", dash),
                         ("stroke-opacity", opacity.map(num)), ("class", cls)])
    }

    enum Anchor: String { case start, middle, end }

    mutating func text(_ s: String, x: Double, y: Double, size: Double = 12, anchor: Anchor = .start,
                       fill: String = "#222", weight: String? = nil, cls: String? = nil, halo: Bool = false,
                       extra: [(String, String?)] = []) {
        let haloAttributes: [(String, String?)] = halo
            ? [("paint-order", "stroke"), ("stroke", "#ffffff"), ("stroke-width", "3"), ("stroke-linejoin", "round")] : []
        element("text", [("x", num(x)), ("y", num(y)), ("font-size", num(size)),
                         ("text-anchor", anchor == .start ? nil : anchor.rawValue), ("fill", fill),
                         ("font-weight", weight), ("class", cls)] + haloAttributes + extra, text: s)
    }

    /// A polyline as a path: `M x y L x y …`.
    mutating func path(_ points: [(Double, Double)], stroke: String, width: Double, cls: String? = nil,
                       fill: String = "none", dash: String? = nil, extra: [(String, String?)] = []) {
        guard let first = points.first else { return }
        var d = "M\(num(first.0)) \(num(first.1))"
        for p in points.dropFirst() { d += " L\(num(p.0)) \(num(p.1))" }
        element("path", [("d", d), ("fill", fill), ("stroke", stroke), ("stroke-width", num(width)),
                         ("stroke-linejoin", "round"), ("stroke-linecap", "round"),
                         ("stroke-dasharray", dash), ("class", cls)] + extra)
    }

    mutating func raw(_ line: String) { emit(line) }

    /// The finished document.
    func render() -> String {
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(num(width))\" height=\"\(num(height))\" "
        s += "viewBox=\"0 0 \(num(width)) \(num(height))\" "
        s += "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
        s += "  <rect x=\"0\" y=\"0\" width=\"\(num(width))\" height=\"\(num(height))\" fill=\"#ffffff\"/>\n"
        s += body.joined(separator: "\n")
        s += "\n</svg>\n"
        return s
    }
}
