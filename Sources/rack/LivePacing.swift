import RackEngine
import RackFiles

/// How `rack send` keeps a live rack able to take every event, and the density `rack check`
/// warns about. A rack holds at most 4,096 timetagged changes waiting for their time (the
/// README's scheduling limits) and reads its socket from one control thread; a sender that
/// outruns either loses events. `rack send` therefore keeps at most `windowEvents` events in
/// flight (sent, and not yet `settleSeconds` past their time) and at most
/// `unacknowledgedEvents` sent since the last `/sync` the rack answered (its `/synced` comes
/// once the render thread has taken everything sent before it, so nothing piles up in the
/// socket's buffer or the render thread's queue, however late the server runs the rack). A
/// file denser than that is still delivered whole: the events that cannot go out ahead of
/// their time go out as soon as there is room, and the rack applies them on arrival.
enum LivePacing {
    /// Events in flight at most: a quarter of the rack's 4,096 scheduled changes, leaving room
    /// for other senders.
    static let windowEvents = 1_024
    /// How long after its time an event is taken as applied (the rack's echo of an applied
    /// change reaches its control thread within a 20 ms pass and a JACK period).
    static let settleSeconds = 0.05
    /// Events sent since the last answered `/sync`, at most.
    static let unacknowledgedEvents = 512
    /// A `/sync` every this many events.
    static let syncEveryEvents = 128
    /// Bytes of one datagram at most (one Ethernet frame's payload, so a remote rack gets
    /// unfragmented datagrams).
    static let datagramBytes = 1_400

    /// Lines where more than `windowEvents` events fall within `settleSeconds`: `rack send` can
    /// deliver them only partly ahead of their time (the rest apply on arrival, late).
    static func crowdedLines(_ events: [AutomationEvent]) -> [(line: Int, count: Int)] {
        var crowded: [(line: Int, count: Int)] = []
        var first = 0
        var reportedUntil = -1
        for last in events.indices {
            while events[last].time - events[first].time > settleSeconds { first += 1 }
            let count = last - first + 1
            if count > windowEvents && first > reportedUntil {
                crowded.append((events[first].line, count))
                reportedUntil = last
            }
        }
        return crowded
    }

    /// The warning `rack check` prints for a crowded line.
    static func crowdedMessage(count: Int) -> String {
        "more than \(windowEvents) events within \(formatNumber(settleSeconds * 1000)) ms from here: "
            + "rack send delivers every one, but some apply late (on arrival) instead of at their time"
    }
}
