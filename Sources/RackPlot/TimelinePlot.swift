import Foundation
import RackDSP
import RackEngine

/// Colours shared by the plots.
enum Palette {
    /// Reserved for problems.
    static let problem = "#d0021b"
    static let ink = "#222222"
    static let muted = "#5f6670"
    static let grid = "#e2e5ea"
    static let frame = "#c9ced6"
    static let laneFill = "#f8f9fb"
    static let marker = "#3a3f47"

    static func parameter(_ id: ParameterID) -> String {
        switch id {
        case .cutoff: "#1f6fb4"
        case .resonance: "#8a3fb0"
        case .mix: "#1b8a5a"
        case .gain: "#c46200"
        case .room: "#444b55"
        }
    }

    /// Pastel fills for the room lane, one per room.
    static func room(_ room: Room) -> String {
        let fills = ["#dbe9f7", "#e6dcf3", "#d9efe3", "#f6e3cf", "#f2d9e2", "#e0e7c9", "#d3ecee"]
        return fills[room.rawValue % fills.count]
    }
}

/// Left-to-right slots for labels that must not overlap: each label takes the first row
/// where it fits.
struct LabelRows {
    var rowEnds: [Double] = []
    let maximumRows: Int

    init(maximumRows: Int) { self.maximumRows = maximumRows }

    /// The row for a label spanning `left…right`.
    mutating func place(left: Double, right: Double, gap: Double = 6) -> Int {
        for (i, end) in rowEnds.enumerated() where end + gap <= left {
            rowEnds[i] = right
            return i
        }
        if rowEnds.count < maximumRows {
            rowEnds.append(right)
            return rowEnds.count - 1
        }
        // Every row is taken: the one that frees up first.
        let i = rowEnds.indices.min { rowEnds[$0] < rowEnds[$1] }!
        rowEnds[i] = max(rowEnds[i], right)
        return i
    }
}

/// Draws a `Timeline` as SVG: one lane per parameter, ramps as the engine's curves.
public enum TimelinePlot {
    public static let width = 1000.0
    static let plotLeft = 86.0
    static let plotRight = 972.0
    static var plotWidth: Double { plotRight - plotLeft }

    /// Plot height of each lane.
    static func laneHeight(_ spec: ParameterSpec) -> Double {
        switch spec.taper {
        case .logarithmic: 128
        case .linear: 84
        case .choice: 30
        }
    }

    public static func svg(_ timeline: Timeline) -> String {
        let duration = timeline.duration
        func x(_ t: Double) -> Double { plotLeft + t / duration * plotWidth }

        var doc = SVGDocument(width: width, height: 100)

        // Title and summary.
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
        var boxes: [(top: Double, bottom: Double)] = []
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

        // End of the input.
        if let length = timeline.inputLength, length < duration {
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

        // Preset recalls: a dashed line across every lane and the name on top.
        for (mark, row, left, w) in presetLabels {
            let y = labelTop + Double(row) * rowHeight
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

        // Problems: a red line at their time across the lanes, a badge in a strip under them, and
        // the message in a list below the time axis.
        var bottom = lanesBottom
        // One marker per line with problems (an error outweighs a warning on the same line).
        let problemLines = Dictionary(grouping: timeline.problems, by: \.line)
            .map { line, ps in (line: line, time: ps[0].time, isError: ps.contains { $0.severity == .error }, problems: ps) }
            .sorted { ($0.time, $0.line) < ($1.time, $1.line) }
        if !problemLines.isEmpty {
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
            bottom = stripTop + Double(badgeRows.rowEnds.count) * 19
        }

        // Time axis.
        doc.open("g", [("class", "time-axis")])
        doc.line(x1: plotLeft, y1: bottom + 4, x2: plotRight, y2: bottom + 4, stroke: Palette.frame)
        for t in timeTicks(duration) {
            doc.line(x1: x(t), y1: bottom + 4, x2: x(t), y2: bottom + 9, stroke: Palette.muted)
            doc.text(Format.seconds(t), x: x(t), y: bottom + 22, size: 11.5, anchor: .middle, fill: Palette.ink)
        }
        doc.text("time (s)", x: (plotLeft + plotRight) / 2, y: bottom + 40, size: 12, anchor: .middle,
                 fill: Palette.muted, weight: "bold")
        doc.close("g")
        bottom += 48

        // The problems' messages.
        if !problemLines.isEmpty {
            doc.open("g", [("class", "problem-list")])
            let listed = timeline.problems.prefix(maximumListedProblems)
            for p in listed {
                bottom += 17
                let when = p.timeIsExact ? Format.seconds(p.time) : "time unreadable"
                let text = "line \(p.line) (\(when)): \(p.severity.rawValue): \(p.message)"
                doc.text(ellipsized(text, size: 12, width: width - 40), x: 20, y: bottom, size: 12, fill: Palette.problem)
            }
            if timeline.problems.count > listed.count {
                bottom += 17
                doc.text("… and \(timeline.problems.count - listed.count) more (rack check lists them all)", x: 20, y: bottom,
                         size: 12, fill: Palette.problem, weight: "bold")
            }
            doc.close("g")
            bottom += 6
        }
        doc.height = bottom + 14
        return doc.render()
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

    /// Where `value` sits in a lane: the parameter's taper maps the range onto the height.
    static func laneY(_ value: Double, spec: ParameterSpec, top: Double, height: Double) -> Double {
        top + height * (1 - spec.normalized(value))
    }

    static func valueTicks(_ spec: ParameterSpec) -> (labelled: [Double], minor: [Double]) {
        switch spec.taper {
        case .logarithmic:
            let t = Ticks.logarithmic(spec.minimum, spec.maximum, labelled: [1])
            return (t.major, t.minor.filter { [2, 5].contains(($0 / pow(10, floor(log10($0)))).rounded()) })
        case .linear:
            return (Ticks.linear(spec.minimum, spec.maximum, target: 4), [])
        case .choice:
            return ([], [])
        }
    }

    static func laneHeader(_ doc: inout SVGDocument, spec: ParameterSpec, y: Double) {
        let unit: String
        switch spec.taper {
        case .logarithmic: unit = "\(spec.unit), logarithmic"
        case .linear: unit = spec.unit
        case .choice: unit = "name (reverb room; a change crossfades)"
        }
        doc.text(spec.name, x: plotLeft, y: y, size: 13.5, fill: Palette.parameter(spec.id), weight: "bold", cls: "lane-name", halo: true)
        doc.text(unit, x: plotLeft + textWidth(spec.name, size: 13.5, bold: true) + 7, y: y, size: 12, fill: Palette.muted,
                 cls: "lane-unit", halo: true)
        let range = spec.taper == .choice ? "starts \(spec.format(spec.defaultValue)) by default"
            : "\(Format.value(spec.minimum, of: spec)) … \(Format.value(spec.maximum, of: spec)), default \(Format.value(spec.defaultValue, of: spec))"
        doc.text(range, x: plotRight, y: y, size: 11, anchor: .end, fill: "#8a9099", cls: "lane-range")
    }

    static func drawLane(_ doc: inout SVGDocument, _ timeline: Timeline, track: ParameterTrack, top: Double,
                         height: Double, x: (Double) -> Double) {
        let spec = track.spec
        let colour = Palette.parameter(spec.id)
        let bottom = top + height
        func y(_ v: Double) -> Double { laneY(v, spec: spec, top: top, height: height) }

        doc.open("g", [("id", "lane-\(spec.name)"), ("class", "lane"), ("data-parameter", spec.name),
                       ("data-unit", spec.unit), ("data-taper", spec.taper.rawValue),
                       ("data-min", formatNumber(spec.minimum)), ("data-max", formatNumber(spec.maximum)),
                       ("data-top", num(top)), ("data-bottom", num(bottom)),
                       ("data-left", num(plotLeft)), ("data-right", num(plotRight)),
                       ("data-duration", formatNumber(timeline.duration))])
        laneHeader(&doc, spec: spec, y: top - 6)
        doc.rect(x: plotLeft, y: top, w: plotWidth, h: height, fill: Palette.laneFill, stroke: Palette.frame, cls: "lane-box")

        for t in timeTicks(timeline.duration) where t > 0 && t < timeline.duration {
            doc.line(x1: x(t), y1: top, x2: x(t), y2: bottom, stroke: Palette.grid)
        }
        let ticks = valueTicks(spec)
        for v in ticks.minor { doc.line(x1: plotLeft, y1: y(v), x2: plotRight, y2: y(v), stroke: Palette.grid, width: 0.7, dash: "2 3") }
        for v in ticks.labelled {
            let emphasise = v == 0 && spec.taper == .linear && spec.minimum < 0
            doc.line(x1: plotLeft, y1: y(v), x2: plotRight, y2: y(v), stroke: emphasise ? "#b9bfc8" : Palette.grid,
                     width: emphasise ? 1.2 : 1)
            doc.line(x1: plotLeft - 4, y1: y(v), x2: plotLeft, y2: y(v), stroke: Palette.muted)
            doc.text(Format.value(v, of: spec), x: plotLeft - 7, y: y(v) + 4, size: 11, anchor: .end, fill: Palette.ink,
                     cls: "tick-label")
        }

        // Ramps: a light band over their duration, so that short ones are seen too.
        // (Ramps narrower than a few pixels get none: dense automation would be one block.)
        for seg in track.segments where seg.kind == .ramp {
            let x0 = x(seg.points.first!.time), x1 = x(seg.points.last!.time)
            guard x1 - x0 >= 3 else { continue }
            doc.rect(x: x0, y: top, w: x1 - x0, h: height, fill: colour, cls: "ramp-band",
                     extra: [("fill-opacity", "0.12")])
        }
        // The curve: held stretches and ramps, each a path.
        for seg in track.segments {
            doc.path(seg.points.map { (x($0.time), y($0.value)) }, stroke: colour, width: 2.2,
                     cls: seg.kind == .ramp ? "ramp" : "hold",
                     extra: [("data-line", seg.line.map(String.init)),
                             ("data-start", num(seg.points.first!.time)), ("data-end", num(seg.points.last!.time))])
        }

        // The values sent, where they arrive and hold for a while; labels that would collide are
        // left out.
        var taken: [(Double, Double, Double, Double)] = []
        var previous = track.segments.first?.points.first?.value ?? .nan
        for change in track.changes {
            defer { previous = change.value }
            guard abs(change.value - previous) > 1e-9 * max(1, abs(change.value)),
                  x(change.holdsUntil) - x(change.arrival) >= 12 else { continue }
            let text = Format.value(change.value, of: spec)
            let w = textWidth(text, size: 11, bold: true)
            let px = x(change.arrival), py = y(change.value)
            let rightward = px + 5 + w <= plotRight
            let lx = rightward ? px + 5 : px - 5 - w
            for ly in [py - 5, py + 14] where ly - 10 >= top && ly + 2 <= bottom {
                let r = (lx - 2, ly - 11, lx + w + 2, ly + 3)
                if taken.contains(where: { $0.0 < r.2 && r.0 < $0.2 && $0.1 < r.3 && r.1 < $0.3 }) { continue }
                taken.append(r)
                doc.text(text, x: rightward ? lx : px - 5, y: ly, size: 11, anchor: rightward ? .start : .end,
                         fill: colour, weight: "bold", cls: "value-label", halo: true,
                         extra: [("data-line", String(change.line))])
                break
            }
        }
        doc.close("g")
    }

    static func drawRoomLane(_ doc: inout SVGDocument, _ timeline: Timeline, spec: ParameterSpec, top: Double,
                             height: Double, x: (Double) -> Double) {
        let bottom = top + height
        doc.open("g", [("id", "lane-\(spec.name)"), ("class", "lane"), ("data-parameter", spec.name),
                       ("data-unit", spec.unit), ("data-taper", spec.taper.rawValue),
                       ("data-top", num(top)), ("data-bottom", num(bottom)),
                       ("data-left", num(plotLeft)), ("data-right", num(plotRight)),
                       ("data-duration", formatNumber(timeline.duration))])
        laneHeader(&doc, spec: spec, y: top - 6)
        doc.rect(x: plotLeft, y: top, w: plotWidth, h: height, fill: Palette.laneFill, stroke: Palette.frame, cls: "lane-box")
        let spans = timeline.rooms
        for (i, span) in spans.enumerated() {
            let next = i + 1 < spans.count ? spans[i + 1] : nil
            let endBottom = next.map { x($0.start) } ?? x(span.end)
            let endTop = next.map { x($0.fadeEnd) } ?? x(span.end)
            let xs = x(span.start), xf = x(span.fadeEnd)
            doc.open("g", [("class", span.line == nil ? "room-span" : "room-span room-change"),
                           ("data-room", span.room.name), ("data-time", num(span.start)),
                           ("data-line", span.line.map(String.init))])
            doc.title(span.line.map { "line \($0): room \(span.room.name) from \(Format.seconds(span.start)), crossfading over \(Format.seconds(span.fadeEnd - span.start))" }
                      ?? "room \(span.room.name) at the start")
            let pts = [(xs, bottom), (xf, top), (endTop, top), (endBottom, bottom)]
            doc.element("polygon", [("points", pts.map { "\(num($0.0)),\(num($0.1))" }.joined(separator: " ")),
                                    ("fill", Palette.room(span.room)), ("stroke", "none")])
            if span.line != nil {
                doc.line(x1: xs, y1: top, x2: xs, y2: bottom, stroke: Palette.marker, width: 2)
            }
            let available = endBottom - xf - 10
            let name = span.room.name
            if available >= textWidth(name, size: 12, bold: true) {
                doc.text(name, x: xf + 6, y: top + height / 2 + 4.5, size: 12, fill: Palette.ink, weight: "bold", cls: "room-name")
            } else if available >= 24 {
                doc.text(ellipsized(name, size: 12, width: available, bold: true), x: xf + 6, y: top + height / 2 + 4.5, size: 12,
                         fill: Palette.ink, weight: "bold", cls: "room-name")
            }
            doc.close("g")
        }
        doc.rect(x: plotLeft, y: top, w: plotWidth, h: height, fill: "none", stroke: Palette.frame)
        doc.close("g")
    }
}
