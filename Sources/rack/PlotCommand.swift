import ArgumentParser
import Foundation
import RackEngine
import RackFiles
import RackPlot

struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw an automation file's parameters over time, the filter's response or the reverb's decay, as SVG or PNG.",
        discussion: """
            rack plot FILE -o OUT.svg|OUT.png [--length SECONDS] [--rate HZ] [--preset NAME] [--set PARAM=VALUE]...
              One lane per parameter (\(Parameters.all.map(\.name).joined(separator: ", "))) over time, computed with \
            the engine's own ramps at --rate: ramps are drawn as slopes with their exact shape (cutoff \
            exponential on a logarithmic axis), preset recalls as dashed lines with the preset's name, room \
            changes as steps with the room's name. The rack starts at the parameter table's defaults, or at \
            --preset and --set as in rack render, and then at what the file sets at time 0 (a --record \
            file sets every parameter there). --length (the input's length) marks the end of the input; \
            events past it are left out, as the engine leaves them out.
              Problems that rack check finds are drawn in red at their line's time (warnings dashed) and \
            listed under the plot. A file with errors is still drawn, with what parses: the picture is \
            written, then the command prints the errors like rack check and exits 65. A file that cannot \
            be read writes nothing (66).

            rack plot --response [--preset NAME]... [--set cutoff=HZ] [--set resonance=DB] -o OUT.svg|OUT.png
              The low-pass filter's magnitude response, 10 Hz–20 kHz, −40…+24 dB, cutoff marked: one curve \
            per --preset (each its own colour, with a legend), or one for the defaults; --set applies to \
            every curve.

            rack plot --decay [--preset NAME]... [--set PARAM=VALUE]... [--rate HZ] -o OUT.svg|OUT.png
              The reverb's RT60 per octave band, 125 Hz–8 kHz, as the engine produces it: T30 of the \
            reverb's impulse response (100 % wet) at --rate, per octave band (IEC 61260 octave filters; \
            Schroeder, −5…−35 dB). One curve per --preset (or one for the defaults), --set applied to \
            each; the decay setting dashed across, the damping frequency marked.

            Output: the extension chooses the format. .svg is written by rack itself; .png is converted \
            from it by rsvg-convert (Debian package librsvg2-bin), exit 69 when that is missing. Any other \
            extension: exit 73. The file is written to a temporary name and renamed, so it appears whole \
            or not at all.
            """)

    @Argument(help: "Automation file (not with --response or --decay).")
    var file: String?
    @Option(name: .shortAndLong, help: ArgumentHelp("Picture to write: .svg, or .png (needs rsvg-convert).", valueName: "OUT"))
    var output: String
    @Flag(help: "Draw the low-pass filter's magnitude response instead of a timeline.")
    var response = false
    @Flag(help: "Draw the reverb's decay time per octave band instead of a timeline.")
    var decay = false
    @Option(help: "Length of the input in seconds: marks its end; flags events and ramps past it.", transform: decimalArgument)
    var length: Double?
    /// The rate `--rate` places events on when not given, Hz.
    static let defaultRateHz = 48_000.0
    @Option(help: "Sample rate in Hz that events and ramps are placed on (default: \(formatNumber(defaultRateHz))).", transform: decimalArgument)
    var rate: Double = defaultRateHz
    @Option(parsing: .unconditionalSingleValue, help: "Timeline: start from this preset. Response, decay: a curve for this preset (repeatable).", completion: Completions.presets)
    var preset: [String] = []
    @Option(name: .customLong("set"), help: ArgumentHelp("Set a parameter (after --preset), e.g. cutoff=800, resonance=12, room=plate. Repeatable.", valueName: "PARAM=VALUE"), completion: Completions.settings)
    var sets: [String] = []

    func validate() throws {
        try validateSampleRate(rate)
        guard !(response && decay) else { throw ValidationError("--response and --decay draw different plots: choose one") }
        if response || decay {
            let plot = response ? "--response draws the filter" : "--decay draws the reverb"
            guard file == nil else { throw ValidationError("\(plot), not an automation file: leave out '\(file!)'") }
            guard length == nil else { throw ValidationError("--length is for timelines, not \(response ? "--response" : "--decay")") }
        } else {
            guard file != nil else { throw ValidationError("missing automation FILE (or --response, or --decay)") }
            guard preset.count <= 1 else { throw ValidationError("a timeline starts from one --preset") }
            if let length { guard length > 0 && length.isFinite && length <= 86_400 else { throw ValidationError("--length must be 0…86400 seconds") } }
        }
    }

    func run() throws {
        try runReportingErrors {
            // Refuse an output that cannot be made before any work: 73, or 69 without rsvg-convert.
            let (format, converter) = try PlotWriter.prepare(output)
            let presets = PresetStore.standard()
            reportPresetProblems(presets)
            if response {
                try plotResponse(presets: presets, format: format, converter: converter)
            } else if decay {
                try plotDecay(presets: presets, format: format, converter: converter)
            } else {
                try plotTimeline(file!, presets: presets, format: format, converter: converter)
            }
        }
    }

    private func plotTimeline(_ path: String, presets: PresetStore, format: PlotFormat, converter: String?) throws(RackError) {
        let (text, automation) = try readAutomation(path, presets: presets, length: length)
        var state = RackState()
        var start = "parameter table defaults"
        if let name = preset.first {
            let p = try lookUpPreset(name, in: presets)
            state = p.state
            start = "preset \(p.name)"
        }
        try applySettings(sets, to: &state)
        if !sets.isEmpty { start += " + " + sets.joined(separator: ", ") }
        start = Timeline.describeStart(start, automation: automation)

        let timeline = Timeline.make(automation: automation, text: text, fileName: (path as NSString).lastPathComponent,
                                     presetState: { presets.preset(named: $0)?.state }, sampleRate: rate, length: length,
                                     initialState: state, startDescription: start)
        try PlotWriter.write(svg: TimelinePlot.svg(timeline), to: output, format: format, converter: converter)

        // Then the problems, as rack check reports them: the picture shows them, the status says so.
        if let failure = reportProblems(of: automation, in: path, lastErrorSuffix: " (plot written to '\(output)')") {
            throw failure
        }
    }

    private func plotResponse(presets: PresetStore, format: PlotFormat, converter: String?) throws(RackError) {
        var curves: [ResponseCurveSpec] = []
        let setText = sets.isEmpty ? "" : " + " + sets.joined(separator: ", ")
        if preset.isEmpty {
            var state = RackState()
            try applySettings(sets, to: &state)
            curves.append(ResponseCurveSpec(name: sets.isEmpty ? "defaults" : "settings",
                                            cutoff: state[.cutoff], resonance: state[.resonance]))
        }
        for name in preset {
            let p = try lookUpPreset(name, in: presets)
            var state = p.state
            try applySettings(sets, to: &state)
            curves.append(ResponseCurveSpec(name: p.name + setText,
                                            cutoff: state[.cutoff], resonance: state[.resonance]))
        }
        try PlotWriter.write(svg: ResponsePlot.svg(curves: curves, sampleRate: rate), to: output, format: format, converter: converter)
    }
}
