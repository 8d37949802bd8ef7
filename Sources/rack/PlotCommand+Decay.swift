import RackDSP
import RackEngine
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
                                         shape: reverbShape(of: state)))
        }
        for name in preset {
            let p = try lookUpPreset(name, in: presets)
            var state = p.state
            for assignment in sets { try applySetting(assignment, to: &state) }
            curves.append(DecayCurveSpec(name: p.name + setText, room: state.room, shape: reverbShape(of: state)))
        }
        try PlotWriter.write(svg: DecayPlot.svg(curves: curves, sampleRate: rate), to: output, format: format, converter: converter)
    }
}

/// The reverb shape a rack at `state` runs. Stands in for the engine's own mapping from a rack
/// state to the kernel's shape (the shaping parameters are being added to the parameter table):
/// until then, the room's own values.
func reverbShape(of state: RackState) -> ReverbShape {
    state.room.shape
}
