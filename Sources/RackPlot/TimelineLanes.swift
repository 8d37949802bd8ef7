import Foundation
import RackEngine

/// The lanes of a timeline plot: one per parameter, its header, grid, curve and value labels;
/// the room lane as coloured spans.
extension TimelinePlot {
    /// Plot height of each lane.
    static func laneHeight(_ spec: ParameterSpec) -> Double {
        switch spec.taper {
        case .logarithmic: 128
        case .linear: 84
        case .choice, .toggle: 30
        }
    }

    /// Where `value` sits in a lane: the parameter's taper maps the range onto the height.
    static func laneY(_ value: Double, spec: ParameterSpec, top: Double, height: Double) -> Double {
        top + height * (1 - spec.normalized(value))
    }

    static func valueTicks(_ spec: ParameterSpec) -> (labelled: [Double], minor: [Double]) {
        switch spec.taper {
        case .logarithmic:
            // Under two decades, 2 and 5 are labelled too (damping, highcut: 500 Hz … 20 kHz).
            let t = Ticks.logarithmic(spec.minimum, spec.maximum, labelled: spec.maximum / spec.minimum < 100 ? [1, 2, 5] : [1])
            return (t.major, t.minor.filter { [2, 5].contains(($0 / pow(10, floor(log10($0)))).rounded()) })
        case .linear:
            return (Ticks.linear(spec.minimum, spec.maximum, target: 4), [])
        case .toggle:
            return ([spec.minimum, spec.maximum], [])
        case .choice:
            return ([], [])
        }
    }

    static func laneHeader(_ doc: inout SVGDocument, spec: ParameterSpec, y: Double) {
        let unit: String
        switch spec.taper {
        case .logarithmic: unit = "\(spec.unit), logarithmic"
        case .linear, .toggle: unit = spec.unit
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
        let bottom = top + height
        doc.open("g", [("id", "lane-\(spec.name)"), ("class", "lane"), ("data-parameter", spec.name),
                       ("data-unit", spec.unit), ("data-taper", spec.taper.rawValue),
                       ("data-min", formatNumber(spec.minimum)), ("data-max", formatNumber(spec.maximum)),
                       ("data-top", num(top)), ("data-bottom", num(bottom)),
                       ("data-left", num(plotLeft)), ("data-right", num(plotRight)),
                       ("data-duration", formatNumber(timeline.duration))])
        laneHeader(&doc, spec: spec, y: top - 6)
        doc.rect(x: plotLeft, y: top, w: plotWidth, h: height, fill: Palette.laneFill, stroke: Palette.frame, cls: "lane-box")
        drawLaneGrid(&doc, timeline, spec: spec, top: top, height: height, x: x)
        drawLaneCurve(&doc, track: track, top: top, height: height, x: x)
        drawValueLabels(&doc, track: track, top: top, height: height, x: x)
        doc.close("g")
    }

    /// A lane's grid: time ticks, and the value ticks of its taper (labelled ones with their value).
    static func drawLaneGrid(_ doc: inout SVGDocument, _ timeline: Timeline, spec: ParameterSpec, top: Double,
                             height: Double, x: (Double) -> Double) {
        let bottom = top + height
        func y(_ v: Double) -> Double { laneY(v, spec: spec, top: top, height: height) }
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
    }

    /// A lane's curve: held stretches and ramps, each a path, ramps under a light band.
    static func drawLaneCurve(_ doc: inout SVGDocument, track: ParameterTrack, top: Double, height: Double,
                              x: (Double) -> Double) {
        let colour = Palette.parameter(track.spec.id)
        func y(_ v: Double) -> Double { laneY(v, spec: track.spec, top: top, height: height) }
        // Ramps: a light band over their duration, so that short ones are seen too.
        // (Ramps narrower than a few pixels get none: dense automation would be one block.)
        for seg in track.segments where seg.kind == .ramp {
            let x0 = x(seg.points.first!.time), x1 = x(seg.points.last!.time)
            guard x1 - x0 >= 3 else { continue }
            doc.rect(x: x0, y: top, w: x1 - x0, h: height, fill: colour, cls: "ramp-band",
                     extra: [("fill-opacity", "0.12")])
        }
        for seg in track.segments {
            doc.path(seg.points.map { (x($0.time), y($0.value)) }, stroke: colour, width: 2.2,
                     cls: seg.kind == .ramp ? "ramp" : "hold",
                     extra: [("data-line", seg.line.map(String.init)),
                             ("data-merged", seg.merged > 1 ? String(seg.merged) : nil),
                             ("data-start", num(seg.points.first!.time)), ("data-end", num(seg.points.last!.time))])
        }
    }

    /// The values sent, where they arrive and hold for a while; labels that would collide are
    /// left out.
    static func drawValueLabels(_ doc: inout SVGDocument, track: ParameterTrack, top: Double, height: Double,
                                x: (Double) -> Double) {
        let spec = track.spec
        let colour = Palette.parameter(spec.id)
        let bottom = top + height
        func y(_ v: Double) -> Double { laneY(v, spec: spec, top: top, height: height) }
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
