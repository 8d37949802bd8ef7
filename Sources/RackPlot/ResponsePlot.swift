import Foundation
import RackEngine

/// Draws filter magnitude responses: 10 Hz–20 kHz on a log axis, −40…+24 dB.
public enum ResponsePlot {
    public static let minimumFrequency = 10.0
    public static let maximumFrequency = 20_000.0
    public static let minimumDecibels = -40.0
    public static let maximumDecibels = 24.0
    static let width = 1000.0
    static let left = 84.0, right = 968.0, top = 96.0, bottom = 540.0

    /// Frequencies of the curve, log-spaced, below Nyquist.
    static func frequencies(sampleRate: Double, count: Int = 720) -> [Double] {
        let hi = min(maximumFrequency, 0.499 * sampleRate)
        let r = log(hi / minimumFrequency)
        return (0...count).map { minimumFrequency * exp(r * Double($0) / Double(count)) }
    }

    /// The frequency axis: 10 Hz … 20 kHz, logarithmic, across the plot.
    static let frequencyAxis = LogAxis(minimum: minimumFrequency, maximum: maximumFrequency, start: left, end: right)

    /// Where a frequency (Hz) and a level (dB) sit in the plot.
    static func x(_ f: Double) -> Double { frequencyAxis.position(f) }
    static func y(_ db: Double) -> Double { bottom - (bottom - top) * (db - minimumDecibels) / (maximumDecibels - minimumDecibels) }

    public static func svg(curves: [ResponseCurveSpec], sampleRate: Double) -> String {
        var doc = SVGDocument(width: width, height: bottom + 66)
        let heading = curves.count == 1 ? curves[0].name + ": " + settings(curves[0]) : curves.map(\.name).joined(separator: ", ")
        doc.text("rack plot --response — " + heading, x: 20, y: 30, size: 19,
                 fill: Palette.ink, weight: "bold", cls: "title")
        doc.text("Low-pass magnitude response at \(formatNumber(sampleRate)) Hz: 2-pole resonant SVF, Q = 10^(resonance/20), so the gain at the cutoff is the resonance",
                 x: 20, y: 50, size: 12, fill: Palette.muted, cls: "subtitle")

        doc.open("g", [("id", "response-plot"), ("data-left", num(left)), ("data-right", num(right)),
                       ("data-top", num(top)), ("data-bottom", num(bottom)),
                       ("data-fmin", formatNumber(minimumFrequency)), ("data-fmax", formatNumber(maximumFrequency)),
                       ("data-dbmin", formatNumber(minimumDecibels)), ("data-dbmax", formatNumber(maximumDecibels))])
        doc.raw("<defs><clipPath id=\"plot-area\"><rect x=\"\(num(left))\" y=\"\(num(top))\" width=\"\(num(right - left))\" height=\"\(num(bottom - top))\"/></clipPath></defs>")
        drawGrid(&doc)
        let maxCutoff = FilterResponse.maximumCutoff(sampleRate: sampleRate)
        let labelRow = cutoffLabelRows(curves, maxCutoff: maxCutoff)
        for (i, c) in curves.enumerated() {
            drawCurve(&doc, c, index: i, labelRow: labelRow[i] ?? 0, sampleRate: sampleRate, maxCutoff: maxCutoff)
        }
        let end = drawLegend(&doc, curves, maxCutoff: maxCutoff)
        doc.close("g")
        doc.height = end + 4
        return doc.render()
    }

    /// Frame, grid (1-2-5 frequencies labelled, the other integer multiples faint; every
    /// 10 dB) and axis titles.
    static func drawGrid(_ doc: inout SVGDocument) {
        doc.rect(x: left, y: top, w: right - left, h: bottom - top, fill: Palette.laneFill, stroke: Palette.frame)
        let ft = Ticks.logarithmic(minimumFrequency, maximumFrequency, labelled: [1, 2, 5])
        for f in ft.minor { doc.line(x1: x(f), y1: top, x2: x(f), y2: bottom, stroke: Palette.grid, width: 0.7) }
        for f in ft.major {
            doc.line(x1: x(f), y1: top, x2: x(f), y2: bottom, stroke: "#d3d7de")
            doc.text(Format.hertz(f), x: x(f), y: bottom + 18, size: 11.5, anchor: .middle, fill: Palette.ink, cls: "tick-label")
        }
        for db in Ticks.linear(minimumDecibels, maximumDecibels, target: 7) {
            doc.line(x1: left, y1: y(db), x2: right, y2: y(db), stroke: db == 0 ? "#9aa1ab" : "#d3d7de", width: db == 0 ? 1.3 : 1)
            doc.text((db > 0 ? "+" : "") + Format.trimmed(db, digits: 0) + " dB", x: left - 7, y: y(db) + 4, size: 11.5,
                     anchor: .end, fill: Palette.ink, cls: "tick-label")
        }
        doc.text("frequency (Hz, logarithmic)", x: (left + right) / 2, y: bottom + 40, size: 12, anchor: .middle,
                 fill: Palette.muted, weight: "bold")
        doc.element("text", [("x", "0"), ("y", "0"), ("font-size", "12"), ("text-anchor", "middle"),
                             ("fill", Palette.muted), ("font-weight", "bold"),
                             ("transform", "translate(22 \(num((top + bottom) / 2))) rotate(-90)")],
                    text: "magnitude (dB)")
    }

    /// The frequency at the cutoff `fc`, in a box beside its marker, kept inside the plot.
    static func cutoffLabel(_ fc: Double) -> (text: String, left: Double, width: Double) {
        let label = Format.hertz(fc)
        let w = textWidth(label, size: 11.5, bold: true) + 10
        return (label, min(max(x(fc) + 4, left + 2), right - w - 2), w)
    }

    /// The row of each curve's cutoff label (by curve index), placed left to right so that none
    /// overlap.
    static func cutoffLabelRows(_ curves: [ResponseCurveSpec], maxCutoff: Double) -> [Int: Int] {
        var labelRows = LabelRows(maximumRows: 4)
        var labelRow: [Int: Int] = [:]
        for (i, c) in curves.enumerated().sorted(by: { min($0.1.cutoff, maxCutoff) < min($1.1.cutoff, maxCutoff) }) {
            let (_, lx, w) = cutoffLabel(min(c.cutoff, maxCutoff))
            labelRow[i] = labelRows.place(left: lx, right: lx + w)
        }
        return labelRow
    }

    /// One curve with its cutoff: a dashed line, a dot at the gain there, and the frequency on top.
    static func drawCurve(_ doc: inout SVGDocument, _ c: ResponseCurveSpec, index i: Int, labelRow: Int,
                          sampleRate: Double, maxCutoff: Double) {
        let colour = Palette.curve(i)
        let fc = min(c.cutoff, maxCutoff)
        doc.open("g", [("id", "response-\(i)"), ("class", "response"), ("data-name", c.name),
                       ("data-cutoff", formatNumber(c.cutoff)), ("data-resonance", formatNumber(c.resonance)),
                       ("data-effective-cutoff", formatNumber(fc))])
        doc.title("\(c.name): cutoff \(Format.hertz(c.cutoff)), resonance \(Format.trimmed(c.resonance, digits: 2)) dB")
        let points = frequencies(sampleRate: sampleRate).map { f in
            (x(f), y(max(minimumDecibels - 20, FilterResponse.magnitudeDecibels(frequency: f, cutoff: c.cutoff,
                                                                                 resonance: c.resonance, sampleRate: sampleRate))))
        }
        let atCutoff = FilterResponse.magnitudeDecibels(frequency: fc, cutoff: c.cutoff, resonance: c.resonance, sampleRate: sampleRate)
        doc.line(x1: x(fc), y1: top, x2: x(fc), y2: bottom, stroke: colour, width: 1.2, dash: "5 4", cls: "cutoff-marker")
        doc.path(points, stroke: colour, width: 2.6, cls: "curve", extra: [("clip-path", "url(#plot-area)")])
        doc.element("circle", [("cx", num(x(fc))), ("cy", num(y(atCutoff))), ("r", "4.5"), ("fill", colour),
                               ("stroke", "#ffffff"), ("stroke-width", "1.5"), ("class", "cutoff-dot")])
        let (label, lx, w) = cutoffLabel(fc)
        let ly = top + 16 + Double(labelRow) * 17
        doc.rect(x: lx, y: ly - 12, w: w, h: 16, fill: "#ffffff", stroke: colour, strokeWidth: 1, rx: 3)
        doc.text(label, x: lx + 5, y: ly, size: 11.5, fill: colour, weight: "bold", cls: "cutoff-label")
        doc.close("g")
    }

    /// Legend, under the axis title (never on top of a curve); returns the y below it.
    static func drawLegend(_ doc: inout SVGDocument, _ curves: [ResponseCurveSpec], maxCutoff: Double) -> Double {
        doc.open("g", [("class", "legend")])
        var ey = bottom + 66
        for (i, c) in curves.enumerated() {
            let colour = Palette.curve(i)
            let entry = "\(c.name) — \(settings(c))"
                + (c.cutoff > maxCutoff ? " (runs at \(Format.hertz(maxCutoff)) at this rate)" : "")
            doc.line(x1: left, y1: ey - 4, x2: left + 28, y2: ey - 4, stroke: colour, width: 3)
            doc.text(entry, x: left + 38, y: ey, size: 12.5, fill: Palette.ink, cls: "legend-entry")
            ey += 20
        }
        doc.close("g")
        return ey
    }

    /// "cutoff 1 kHz, resonance +12 dB".
    static func settings(_ c: ResponseCurveSpec) -> String {
        "cutoff \(Format.hertz(c.cutoff)), resonance \(Format.value(c.resonance, of: Parameters[.resonance]))"
    }
}
