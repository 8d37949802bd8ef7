import RackDSP
import RackEngine
import RackFiles
import RackPlot

extension PlotCommand {
    /// `rack plot --decay`: one curve per --preset (or one for the defaults), --set applied to
    /// each, measured at --rate.
    func plotDecay(presets: PresetStore, format: PlotFormat, converter: String?) throws(RackError) {
        var curves: [DecayCurveSpec] = []
        let setText = sets.isEmpty ? "" : " + " + sets.joined(separator: ", ")
        if preset.isEmpty {
            var state = RackState()
            for assignment in sets { try applySetting(assignment, to: &state) }
            curves.append(DecayCurveSpec(name: sets.isEmpty ? "defaults" : "settings", room: state.room,
                                         shape: state.reverbShape))
        }
        for name in preset {
            let p = try lookUpPreset(name, in: presets)
            var state = p.state
            for assignment in sets { try applySetting(assignment, to: &state) }
            curves.append(DecayCurveSpec(name: p.name + setText, room: state.room, shape: state.reverbShape))
        }
        try PlotWriter.write(svg: DecayPlot.svg(curves: curves, sampleRate: rate), to: output, format: format, converter: converter)
    }
}
