import Foundation
import RackDSP
import RackEngine
import RackFiles

/// Draws a `Timeline` as SVG: one lane per parameter, ramps as the engine's curves.
public enum TimelinePlot {
    public static let width = 1000.0
    static let plotLeft = 86.0
    static let plotRight = 972.0
    static var plotWidth: Double { plotRight - plotLeft }

    public static func svg(_ timeline: Timeline) -> String {
        let duration = timeline.duration
        func x(_ t: Double) -> Double { plotLeft + t / duration * plotWidth }

        var doc = SVGDocument(width: width, height: 100)
        drawHeading(&doc, timeline)

        // Preset labels, in rows so that none overlap.
        let labelTop = 82.0, rowHeight = 21.0
        var rows = LabelRows(maximumRows: 4)
        var presetLabels: [(mark: PresetMark, row: Int, left: Double, w: Double)] = []
        for mark in timeline.presets {
            let w = textWidth(mark.name, size: 12, bold: true) + 14
            let left = min(max(x(mark.time) - 7, 8), width - 8 - w)
            presetLabels.append((mark, rows.place(left: left, right: left + w), left, w))
        }
        let presetRows = rows.rowEnds.count
        var laneTop = labelTop + Double(presetRows) * rowHeight + (presetRows > 0 ? 8 : 0)

        // Lanes.
        var boxes: [LaneBox] = []
        for spec in Parameters.all {
            let h = laneHeight(spec)
            let top = laneTop + 19
            if spec.taper == .choice {
                drawRoomLane(&doc, timeline, spec: spec, top: top, height: h, x: x)
            } else if let track = timeline.tracks.first(where: { $0.id == spec.id }) {
                drawLane(&doc, timeline, track: track, top: top, height: h, x: x)
            }
            boxes.append((top, top + h))
            laneTop = top + h + 12
        }
        let lanesTop = boxes.first!.top, lanesBottom = boxes.last!.bottom

        if let length = timeline.inputLength, length < duration {
            drawEndOfInput(&doc, at: length, boxes: boxes, x: x)
        }
        // Preset recalls: a dashed line across every lane and the name on top.
        for (mark, row, left, w) in presetLabels {
            drawPresetRecall(&doc, mark, y: labelTop + Double(row) * rowHeight, left: left, w: w,
                             lanesTop: lanesTop, boxes: boxes, x: x)
        }

        // Problems: a red line at their time across the lanes, a badge in a strip under them, and
        // the message in a list below the time axis.
        var bottom = lanesBottom
        let problemLines = ProblemLine.grouping(timeline.problems)
        if !problemLines.isEmpty {
            bottom = drawProblemMarkers(&doc, problemLines, boxes: boxes, lanesBottom: lanesBottom, x: x)
        }
        drawTimeAxis(&doc, duration: duration, bottom: bottom, x: x)
        bottom += 48
        if !problemLines.isEmpty {
            bottom = drawProblemList(&doc, timeline.problems, bottom: bottom)
        }
        doc.height = bottom + 14
        return doc.render()
    }

    /// The title, the summary line, rack check's verdict and the legend.
    static func drawHeading(_ doc: inout SVGDocument, _ timeline: Timeline) {
        doc.text("rack plot — " + timeline.fileName, x: 20, y: 30, size: 19, fill: Palette.ink, weight: "bold", cls: "title")
        var summary = "\(timeline.eventCount) event\(timeline.eventCount == 1 ? "" : "s") · start: \(timeline.startDescription) · \(formatNumber(timeline.sampleRate)) Hz"
        if let length = timeline.inputLength { summary += " · input \(Format.seconds(length))" }
        doc.text(summary, x: 20, y: 50, size: 12, fill: Palette.muted, cls: "subtitle")
        let checkText: String
        if timeline.problems.isEmpty {
            checkText = "rack check: no problems"
        } else {
            let e = timeline.errorCount, w = timeline.warningCount
            var parts: [String] = []
            if e > 0 { parts.append("\(e) error\(e == 1 ? "" : "s")") }
            if w > 0 { parts.append("\(w) warning\(w == 1 ? "" : "s")") }
            checkText = "rack check: " + parts.joined(separator: ", ")
        }
        doc.text(checkText, x: width - 20, y: 30, size: 13, anchor: .end,
                 fill: timeline.problems.isEmpty ? "#1b7a3d" : Palette.problem, weight: "bold", cls: "check-summary")
        drawLegend(&doc, y: 68)
    }

    /// The time axis under the lanes (and the problem strip), its top at `bottom`.
    static func drawTimeAxis(_ doc: inout SVGDocument, duration: Double, bottom: Double, x: (Double) -> Double) {
        doc.open("g", [("class", "time-axis")])
        doc.line(x1: plotLeft, y1: bottom + 4, x2: plotRight, y2: bottom + 4, stroke: Palette.frame)
        for t in timeTicks(duration) {
            doc.line(x1: x(t), y1: bottom + 4, x2: x(t), y2: bottom + 9, stroke: Palette.muted)
            doc.text(Format.seconds(t), x: x(t), y: bottom + 22, size: 11.5, anchor: .middle, fill: Palette.ink)
        }
        doc.text("time (s)", x: (plotLeft + plotRight) / 2, y: bottom + 40, size: 12, anchor: .middle,
                 fill: Palette.muted, weight: "bold")
        doc.close("g")
    }

    /// Problems listed under the plot at most; the rest are counted (the markers show them all).
    static let maximumListedProblems = 40

    static func timeTicks(_ duration: Double) -> [Double] {
        Ticks.linear(0, duration, target: 10)
    }

    /// Cuts `s` with "…" to fit `width`.
    static func ellipsized(_ s: String, size: Double, width: Double, bold: Bool = false) -> String {
        if textWidth(s, size: size, bold: bold) <= width { return s }
        var t = s
        while !t.isEmpty && textWidth(t + "…", size: size, bold: bold) > width { t.removeLast() }
        return t + "…"
    }

    static func drawLegend(_ doc: inout SVGDocument, y: Double) {
        doc.open("g", [("class", "legend")])
        var x = 20.0
        func item(_ label: String, _ draw: (inout SVGDocument, Double) -> Void) {
            draw(&doc, x)
            doc.text(label, x: x + 26, y: y + 4, size: 11.5, fill: Palette.muted)
            x += 26 + textWidth(label, size: 11.5) + 18
        }
        item("value (engine ramps, sampled)") { d, x in
            d.path([(x, y + 4), (x + 8, y + 4), (x + 16, y - 3), (x + 22, y - 3)], stroke: Palette.parameter(.cutoff), width: 2)
        }
        item("ramp in progress") { d, x in
            d.rect(x: x, y: y - 6, w: 22, h: 12, fill: Palette.parameter(.cutoff), extra: [("fill-opacity", "0.12")])
        }
        item("preset recall") { d, x in
            d.line(x1: x + 11, y1: y - 7, x2: x + 11, y2: y + 7, stroke: Palette.marker, width: 1.2, dash: "3 2")
        }
        item("problem (error; dashed: warning)") { d, x in
            d.line(x1: x + 11, y1: y - 7, x2: x + 11, y2: y + 7, stroke: Palette.problem, width: 1.6)
        }
        doc.close("g")
    }

}

