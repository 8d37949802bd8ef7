/// The one stream of change records (`ControlState`'s): every sink of the rack's feedback
/// subscribes to it (OSC subscribers and the web page through `Feedback`, MIDI out through
/// `MIDIControl`, `--record`, the session manager's dirty flag, `lastApplied`), in the order
/// they subscribed, so no call site tells a sink itself. On the control thread only.
final class ChangeStream {
    private var sinks: [(ChangeRecord) -> Void] = []

    /// `sink` sees every record published from now on, after the sinks subscribed before it.
    func subscribe(_ sink: @escaping (ChangeRecord) -> Void) { sinks.append(sink) }

    /// Hands each record, in order, to every sink.
    func publish(_ records: [ChangeRecord]) {
        for record in records {
            for sink in sinks { sink(record) }
        }
    }
}
