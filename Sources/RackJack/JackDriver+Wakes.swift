import CJack
import RackDSP

/// When the driver needs the control thread without a JACK notification to say so: the
/// notifications that matter (the server gone, a rate, a buffer size, a port registered or
/// gone, a connection made or undone) wake it through `rack_wake_install`; the rest is timed.
extension JackDriver {
    /// The first moment (seconds on the caller's clock) `poll` has work that no JACK
    /// notification announces; nil: none until one comes. While no server is joined: the next
    /// rejoin attempt (or a look at a dead client's close every `closeLookSeconds`); while the
    /// engine is held for a servable rate: the next period (the process callback acknowledges
    /// the hold, or the release is due); a wanted connection seen undone: when the undoing has
    /// lasted `undoneSeconds`; a wanted connection missing: the next attempt to make it.
    public func nextDeadline(now: Double) -> Double? {
        guard let context, client != nil else {
            return closing.count > 0 ? now + Self.closeLookSeconds : lastRejoinAttempt + Self.rejoinInterval
        }
        var due: [Double] = []
        if rack_jack_holding(context) != 0, SampleRates.supported.contains(Double(rack_jack_sample_rate(context))) {
            due.append(now + Self.holdLookSeconds)
        }
        if let first = undoneSince.values.min() { due.append(first + Self.undoneSeconds) }
        if hasMissingWanted { due.append(lastConnectAttempt + Self.connectRetrySeconds) }
        return due.min()
    }

    /// A wanted connection seen undone has been undone for `undoneSeconds` by `now`: the next
    /// look decides whether someone undid it.
    func undoneDecisionDue(now: Double) -> Bool {
        undoneSince.values.contains { now - $0 >= Self.undoneSeconds }
    }

    /// Whether `midi_in` had a connection at the last look (the control loop then looks for
    /// what MIDI input made; nothing can arrive without one).
    public var midiInputConnected: Bool {
        !(seen[Self.portNames[Self.midiInIndex]] ?? []).isEmpty
    }

    /// A wanted connection missing while its peer may come: tried again this often (s); a peer's
    /// port registering is tried at once.
    static let connectRetrySeconds = 1.0
    /// A wanted connection seen undone while both ends exist is forgotten once the undoing has
    /// lasted this long (s): a server going down disconnects everything just before it says so.
    static let undoneSeconds = 1.0
    /// While the engine is held for a servable rate, the driver looks again this often (s): the
    /// process callback acknowledges the hold in its next cycle (5.3 ms at 256 frames, 48 kHz).
    static let holdLookSeconds = 0.005
    /// While a dead client is being closed on its own thread, the rejoin looks this often (s)
    /// whether the close is done.
    static let closeLookSeconds = 0.05
}
