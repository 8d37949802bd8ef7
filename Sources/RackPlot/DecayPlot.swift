import Foundation
import RackDSP
import RackEngine

/// One curve of a decay plot: a room and the shape the engine runs it with.
public struct DecayCurveSpec: Sendable {
    /// Legend name: a preset's name, or a description of the settings.
    public var name: String
    public var room: Room
    public var shape: ReverbShape

    public init(name: String, room: Room, shape: ReverbShape) {
        (self.name, self.room, self.shape) = (name, room, shape)
    }
}

/// Draws the reverb's RT60 per octave band (125 Hz … 8 kHz, `DecayResponse`), one curve per
/// spec, on logarithmic frequency and time axes: `decay` and `damping` in one picture.
public enum DecayPlot {
    static let width = 1000.0
    static let left = 84.0, right = 968.0, top = 96.0, bottom = 540.0

    /// A measured curve: the spec and its T30 per band of `DecayResponse.bandCentresHz`.
    struct Curve {
        let spec: DecayCurveSpec
        let bandSeconds: [Double?]
    }

    /// Measures every curve at `sampleRate` Hz and draws them.
    public static func svg(curves specs: [DecayCurveSpec], sampleRate: Double) -> String {
        let curves = specs.map { spec in
            Curve(spec: spec, bandSeconds: DecayResponse.octaveDecaySeconds(room: spec.room, shape: spec.shape,
                                                                            sampleRate: sampleRate))
        }
        let axes = DecayAxes(seconds: curves.flatMap { $0.bandSeconds.compactMap { $0 } + [$0.spec.shape.clamped.decaySeconds] },
                             left: left, right: right, top: top, bottom: bottom)
        var doc = SVGDocument(width: width, height: bottom + 66)
        let heading = curves.count == 1 ? specs[0].name + ": " + settings(specs[0]) : specs.map(\.name).joined(separator: ", ")
        doc.text("rack plot --decay — " + heading, x: 20, y: 30, size: 19, fill: Palette.ink, weight: "bold", cls: "title")
        doc.text("RT60 per octave band: T30 of the reverb's own impulse response at \(formatNumber(sampleRate)) Hz, 100 % wet. "
                 + "Dashed: the decay setting",
                 x: 20, y: 50, size: 12, fill: Palette.muted, cls: "subtitle")
        doc.open("g", [("id", "decay-plot"), ("data-left", num(left)), ("data-right", num(right)),
                       ("data-top", num(top)), ("data-bottom", num(bottom)),
                       ("data-fmin", formatNumber(axes.minimumHz)), ("data-fmax", formatNumber(axes.maximumHz)),
                       ("data-smin", formatNumber(axes.minimumSeconds)), ("data-smax", formatNumber(axes.maximumSeconds))])
        doc.raw("<defs><clipPath id=\"decay-area\"><rect x=\"\(num(left))\" y=\"\(num(top))\" width=\"\(num(right - left))\" height=\"\(num(bottom - top))\"/></clipPath></defs>")
        drawGrid(&doc, axes)
        let rows = dampingLabelRows(curves, axes)
        for (i, curve) in curves.enumerated() { drawCurve(&doc, curve, index: i, labelRow: rows[i], axes) }
        let end = drawLegend(&doc, curves)
        doc.close("g")
        doc.height = end + 4
        return doc.render()
    }

    /// Frame, band ticks, 1-2-5 second ticks (others faint), axis titles.
    static func drawGrid(_ doc: inout SVGDocument, _ axes: DecayAxes) {
        doc.rect(x: left, y: top, w: right - left, h: bottom - top, fill: Palette.laneFill, stroke: Palette.frame)
        for f in DecayResponse.bandCentresHz {
            doc.line(x1: axes.x(f), y1: top, x2: axes.x(f), y2: bottom, stroke: "#d3d7de")
            doc.text(Format.hertz(f), x: axes.x(f), y: bottom + 18, size: 11.5, anchor: .middle, fill: Palette.ink, cls: "tick-label")
        }
        let ticks = Ticks.logarithmic(axes.minimumSeconds, axes.maximumSeconds, labelled: [1, 2, 5])
        for s in ticks.minor { doc.line(x1: left, y1: axes.y(s), x2: right, y2: axes.y(s), stroke: Palette.grid, width: 0.7) }
        for s in ticks.major {
            doc.line(x1: left, y1: axes.y(s), x2: right, y2: axes.y(s), stroke: "#d3d7de")
            doc.text(Format.trimmed(s, digits: 2) + " s", x: left - 7, y: axes.y(s) + 4, size: 11.5,
                     anchor: .end, fill: Palette.ink, cls: "tick-label")
        }
        doc.text("octave band (centre frequency)", x: (left + right) / 2, y: bottom + 40, size: 12, anchor: .middle,
                 fill: Palette.muted, weight: "bold")
        doc.element("text", [("x", "0"), ("y", "0"), ("font-size", "12"), ("text-anchor", "middle"),
                             ("fill", Palette.muted), ("font-weight", "bold"),
                             ("transform", "translate(22 \(num((top + bottom) / 2))) rotate(-90)")],
                    text: "RT60 (s, logarithmic)")
    }

    /// One curve: the set decay dashed across, the measured bands joined and dotted, the damping
    /// frequency marked when it is inside the plot.
    static func drawCurve(_ doc: inout SVGDocument, _ curve: Curve, index: Int, labelRow: Int?, _ axes: DecayAxes) {
        let colour = Palette.curve(index)
        let shape = curve.spec.shape.clamped
        doc.open("g", [("id", "decay-\(index)"), ("class", "decay"), ("data-name", curve.spec.name),
                       ("data-room", curve.spec.room.name), ("data-decay", formatNumber(shape.decaySeconds)),
                       ("data-damping", formatNumber(shape.dampingHz))])
        doc.title("\(curve.spec.name): \(settings(curve.spec))")
        doc.line(x1: left, y1: axes.y(shape.decaySeconds), x2: right, y2: axes.y(shape.decaySeconds),
                 stroke: colour, width: 1.2, dash: "5 4", cls: "decay-setting")
        if let labelRow { drawDampingMarker(&doc, hz: shape.dampingHz, colour: colour, row: labelRow, axes) }
        let measured = zip(DecayResponse.bandCentresHz, curve.bandSeconds).compactMap { f, s in s.map { (f, $0) } }
        doc.path(measured.map { (axes.x($0.0), axes.y($0.1)) }, stroke: colour, width: 2.6, cls: "curve",
                 extra: [("clip-path", "url(#decay-area)")])
        for (f, s) in measured {
            doc.open("circle", [("cx", num(axes.x(f))), ("cy", num(axes.y(s))), ("r", "4.5"), ("fill", colour),
                                ("stroke", "#ffffff"), ("stroke-width", "1.5"), ("class", "band"),
                                ("data-hz", formatNumber(f)), ("data-seconds", formatNumber(s))])
            doc.title("\(Format.hertz(f)) octave: RT60 \(Format.trimmed(s, digits: 2)) s")
            doc.close("circle")
        }
        doc.close("g")
    }

    /// The damping frequency: a dashed line and its value in a box, in the label's row.
    static func drawDampingMarker(_ doc: inout SVGDocument, hz: Double, colour: String, row: Int, _ axes: DecayAxes) {
        doc.line(x1: axes.x(hz), y1: top, x2: axes.x(hz), y2: bottom, stroke: colour, width: 1.2, dash: "2 3",
                 cls: "damping-marker")
        let (label, lx, w) = dampingLabel(hz, axes)
        let ly = top + 16 + Double(row) * 17
        doc.rect(x: lx, y: ly - 12, w: w, h: 16, fill: "#ffffff", stroke: colour, strokeWidth: 1, rx: 3)
        doc.text(label, x: lx + 5, y: ly, size: 11.5, fill: colour, weight: "bold", cls: "damping-label")
    }

    /// "damping 4 kHz" beside its marker, kept inside the plot: text, left edge, width.
    static func dampingLabel(_ hz: Double, _ axes: DecayAxes) -> (text: String, left: Double, width: Double) {
        let label = "damping " + Format.hertz(hz)
        let w = textWidth(label, size: 11.5, bold: true) + 10
        return (label, min(max(axes.x(hz) + 4, left + 2), right - w - 2), w)
    }

    /// The label row of each curve's damping marker, placed left to right so that none overlap;
    /// nil where the damping is off or outside the bands drawn.
    static func dampingLabelRows(_ curves: [Curve], _ axes: DecayAxes) -> [Int?] {
        var rows = LabelRows(maximumRows: 4)
        var row = [Int?](repeating: nil, count: curves.count)
        let marked = curves.indices.filter { axes.marks(damping: curves[$0].spec.shape.clamped.dampingHz) }
        for i in marked.sorted(by: { curves[$0].spec.shape.clamped.dampingHz < curves[$1].spec.shape.clamped.dampingHz }) {
            let (_, lx, w) = dampingLabel(curves[i].spec.shape.clamped.dampingHz, axes)
            row[i] = rows.place(left: lx, right: lx + w)
        }
        return row
    }

    /// Legend under the axis title; returns the y below it.
    static func drawLegend(_ doc: inout SVGDocument, _ curves: [Curve]) -> Double {
        doc.open("g", [("class", "legend")])
        var ey = bottom + 66
        for (i, curve) in curves.enumerated() {
            doc.line(x1: left, y1: ey - 4, x2: left + 28, y2: ey - 4, stroke: Palette.curve(i), width: 3)
            doc.text("\(curve.spec.name) — \(settings(curve.spec))", x: left + 38, y: ey, size: 12.5,
                     fill: Palette.ink, cls: "legend-entry")
            ey += 20
        }
        doc.close("g")
        return ey
    }

    /// "room mediumHall, decay 1.8 s, damping 5 kHz" (or "damping off").
    static func settings(_ spec: DecayCurveSpec) -> String {
        let shape = spec.shape.clamped
        let damping = shape.dampingHz >= ReverbShape.dampingRange.upperBound ? "damping off" : "damping " + Format.hertz(shape.dampingHz)
        return "room \(spec.room.name), decay \(Format.trimmed(shape.decaySeconds, digits: 2)) s, \(damping)"
    }
}

/// The decay plot's axes: octave bands on a logarithmic frequency axis (from the lowest band's
/// lower edge to the highest band's upper edge), RT60 on a logarithmic time axis from the 1-2-5
/// value below the shortest time to the one above the longest (with a fifth of room).
struct DecayAxes {
    let minimumHz: Double, maximumHz: Double
    let minimumSeconds: Double, maximumSeconds: Double
    let left: Double, right: Double, top: Double, bottom: Double

    init(seconds: [Double], left: Double, right: Double, top: Double, bottom: Double) {
        minimumHz = DecayResponse.bandCentresHz.first! / 2.0.squareRoot()
        maximumHz = DecayResponse.bandCentresHz.last! * 2.0.squareRoot()
        let shortest = (seconds.min() ?? 1) / 1.2, longest = (seconds.max() ?? 1) * 1.2
        minimumSeconds = Self.oneTwoFive(shortest, rounding: .down)
        maximumSeconds = Self.oneTwoFive(longest, rounding: .up)
        (self.left, self.right, self.top, self.bottom) = (left, right, top, bottom)
    }

    /// The frequency axis, left to right, and the time axis, bottom to top (both logarithmic).
    var frequencyAxis: LogAxis { LogAxis(minimum: minimumHz, maximum: maximumHz, start: left, end: right) }
    var secondsAxis: LogAxis { LogAxis(minimum: minimumSeconds, maximum: maximumSeconds, start: bottom, end: top) }

    func x(_ hz: Double) -> Double { frequencyAxis.position(hz) }
    func y(_ seconds: Double) -> Double { secondsAxis.position(seconds) }

    /// Whether a damping frequency gets a marker: damping on, and inside the frequency axis.
    func marks(damping hz: Double) -> Bool {
        hz < ReverbShape.dampingRange.upperBound && hz >= minimumHz && hz <= maximumHz
    }

    /// The nearest value of the 1-2-5 sequence (…, 0.5, 1, 2, 5, 10, …) at or below / above `x`.
    static func oneTwoFive(_ x: Double, rounding: FloatingPointRoundingRule) -> Double {
        let decade = pow(10, floor(log10(x)))
        let steps = [1.0, 2, 5, 10].map { $0 * decade }
        if rounding == .down { return steps.last { $0 <= x * 1.000_001 } ?? decade }
        return steps.first { $0 >= x * 0.999_999 } ?? 10 * decade
    }
}
