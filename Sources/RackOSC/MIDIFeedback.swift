import RackEngine

/// MIDI out as a sink of the change stream, like subscribers, the web page and `--record`: a
/// parameter's new value goes out as the CC of every controller bound to it
/// (`MIDILink.sendFeedback`), queued for the render thread, which writes it to `midi_out` at
/// the start of its next cycle.
extension ChangeRecord {
    /// The parameter value MIDI out sends for this record, or nil: a change a MIDI controller
    /// made (never sent back to MIDI), the engine taking up the state after a rejoin (no news),
    /// a preset's own record (its parameters follow as their own records) and the transport.
    /// A room change's shaping values are parameter records like any other: a controller bound
    /// to one of them gets the value the room brought.
    var midiFeedback: (parameter: ParameterID, value: Double)? {
        guard source != .midiController, source != .rejoin, case let .parameter(id, value) = change else { return nil }
        return (id, value)
    }
}

extension MIDIControl {
    /// The change stream's MIDI sink: sends the record's `midiFeedback`, if it has one (only the
    /// CCs that change, `MIDILink.sendFeedback`); a parameter a controller set, or the state
    /// after a rejoin, is noted as what the controllers show.
    func tell(_ record: ChangeRecord) {
        if let feedback = record.midiFeedback {
            link.sendFeedback(feedback.parameter, value: feedback.value)
        } else if case let .parameter(id, value) = record.change {
            link.noteFeedback(id, value: value)
        }
    }

    /// The controllers show `targets` (MIDI attached to a running rack): feedback sends what
    /// changes from here on.
    func noteShown(_ targets: RackState) {
        for spec in Parameters.all { link.noteFeedback(spec.id, value: targets[spec.id]) }
    }
}
