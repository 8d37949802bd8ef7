import Foundation
import RackEngine

/// The marks a timeline plot draws across its lanes: the end of the input, preset recalls, and the
/// problems rack check finds (markers in a strip under the lanes, messages in a list below).
extension TimelinePlot {
    /// A lane's box, top and bottom (SVG units).
    typealias LaneBox = (top: Double, bottom: Double)

    /// The problems of one automation line: one marker (an error outweighs a warning on the same line).
    struct ProblemLine {
        let line: Int
        let time: Double
        let isError: Bool
        let problems: [TimelineProblem]

        /// One per line with problems, in time order.
        static func grouping(_ problems: [TimelineProblem]) -> [ProblemLine] {
            Dictionary(grouping: problems, by: \.line)
                .map { line, ps in ProblemLine(line: line, time: ps[0].time, isError: ps.contains { $0.severity == .error }, problems: ps) }
                .sorted { ($0.time, $0.line) < ($1.time, $1.line) }
        }
    }

    /// The input's end at `length` seconds: the time after it shaded, a dotted line, a label.
    static func drawEndOfInput(_ doc: inout SVGDocument, at length: Double, boxes: [LaneBox], x: (Double) -> Double) {
        doc.open("g", [("class", "end-of-input"), ("data-time", num(length))])
        for b in boxes {
            doc.rect(x: x(length), y: b.top, w: plotRight - x(length), h: b.bottom - b.top, fill: "#000000",
                     extra: [("fill-opacity", "0.07")])
        }
        for b in boxes {
            doc.line(x1: x(length), y1: b.top, x2: x(length), y2: b.bottom, stroke: Palette.muted, width: 1.2, dash: "2 3")
        }
        let label = "end of input"
        let fitsRight = x(length) + 6 + textWidth(label, size: 11) < plotRight
        // At the foot of the cutoff lane (its lowest octave is rarely visited).
        doc.text(label, x: fitsRight ? x(length) + 5 : x(length) - 5, y: boxes[0].bottom - 6, size: 11,
                 anchor: fitsRight ? .start : .end, fill: Palette.muted, weight: "bold", halo: true)
        doc.close("g")
    }

    /// A preset recall: a dashed line through the lanes, the name in a pill at `left`, `y`.
    static func drawPresetRecall(_ doc: inout SVGDocument, _ mark: PresetMark, y: Double, left: Double, w: Double,
                                 lanesTop: Double, boxes: [LaneBox], x: (Double) -> Double) {
        doc.open("g", [("class", "preset-recall"), ("id", "preset-line-\(mark.line)"), ("data-line", String(mark.line)),
                       ("data-time", num(mark.time)), ("data-name", mark.name)])
        doc.title("line \(mark.line): preset \(mark.name) at \(Format.seconds(mark.time)), every parameter ramping over ≤ \(Format.seconds(mark.rampSeconds))")
        // Through the lanes, not across their headers.
        for (a, b) in [(y + 16, lanesTop - 18)] + boxes.map({ ($0.top, $0.bottom) }) {
            doc.line(x1: x(mark.time), y1: a, x2: x(mark.time), y2: b, stroke: Palette.marker,
                     width: 1.2, dash: "5 4", opacity: 0.75)
        }
        doc.rect(x: left, y: y, w: w, h: 17, fill: "#3a3f47", rx: 8.5)
        doc.text(mark.name, x: left + 7, y: y + 12.5, size: 12, fill: "#ffffff", weight: "bold", cls: "preset-name")
        doc.close("g")
    }

    /// A red line per problem line across the lanes and a badge in rows under them; returns the
    /// bottom of the badge strip.
    static func drawProblemMarkers(_ doc: inout SVGDocument, _ problemLines: [ProblemLine], boxes: [LaneBox],
                                   lanesBottom: Double, x: (Double) -> Double) -> Double {
        var badgeRows = LabelRows(maximumRows: 3)
        var placed: [(row: Int, left: Double, w: Double)] = []
        for p in problemLines {
            let w = textWidth("line \(p.line)", size: 11, bold: true) + 12
            let left = min(max(x(p.time) - w / 2, 4), width - 4 - w)
            placed.append((badgeRows.place(left: left, right: left + w, gap: 3), left, w))
        }
        let stripTop = lanesBottom + 6
        doc.text("problems", x: plotLeft - 8, y: stripTop + 13, size: 11, anchor: .end, fill: Palette.problem, weight: "bold")
        // Lines first, then the badges over them, so that no line crosses a badge's text.
        for (i, p) in problemLines.enumerated() {
            let y = stripTop + Double(placed[i].row) * 19
            for (a, b) in boxes.map({ ($0.top, $0.bottom) }) + [(lanesBottom, y)] {
                doc.line(x1: x(p.time), y1: a, x2: x(p.time), y2: b, stroke: Palette.problem,
                         width: p.isError ? 1.6 : 1.2, dash: p.isError ? nil : "4 3",
                         cls: "problem-line \(p.isError ? "error" : "warning")", opacity: 0.85)
            }
        }
        for (i, p) in problemLines.enumerated() {
            let (row, left, w) = placed[i]
            let y = stripTop + Double(row) * 19
            let severity = p.isError ? "error" : "warning"
            doc.open("g", [("class", "problem \(severity)"), ("data-line", String(p.line)),
                           ("data-time", num(p.time)), ("data-x", num(x(p.time))),
                           ("data-message", p.problems.map(\.message).joined(separator: "; "))])
            doc.title(p.problems.map { "line \(p.line): \($0.severity.rawValue): \($0.message)" }.joined(separator: "\n"))
            doc.rect(x: left, y: y, w: w, h: 16, fill: p.isError ? Palette.problem : "#ffffff",
                     stroke: Palette.problem, strokeWidth: 1.2, rx: 3, cls: "problem-marker")
            doc.text("line \(p.line)", x: left + w / 2, y: y + 12, size: 11, anchor: .middle,
                     fill: p.isError ? "#ffffff" : Palette.problem, weight: "bold")
            doc.close("g")
        }
        return stripTop + Double(badgeRows.rowEnds.count) * 19
    }

    /// The problems' messages (at most `maximumListedProblems`, then a count) from `bottom` down;
    /// returns the new bottom.
    static func drawProblemList(_ doc: inout SVGDocument, _ problems: [TimelineProblem], bottom: Double) -> Double {
        var bottom = bottom
        doc.open("g", [("class", "problem-list")])
        let listed = problems.prefix(maximumListedProblems)
        for p in listed {
            bottom += 17
            let when = p.timeIsExact ? Format.seconds(p.time) : "time unreadable"
            let text = "line \(p.line) (\(when)): \(p.severity.rawValue): \(p.message)"
            doc.text(ellipsized(text, size: 12, width: width - 40), x: 20, y: bottom, size: 12, fill: Palette.problem)
        }
        if problems.count > listed.count {
            bottom += 17
            doc.text("… and \(problems.count - listed.count) more (rack check lists them all)", x: 20, y: bottom,
                     size: 12, fill: Palette.problem, weight: "bold")
        }
        doc.close("g")
        bottom += 6
        return bottom
    }
}
