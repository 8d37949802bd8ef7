/// A cap on one kind of costly work of the control thread (a listing of the media directories,
/// a session save): at most `perDatagram` in one datagram and `perSecond` in each window of a
/// second (the window starts at the first piece of work after the last one ended), so that no
/// datagram, and no stream of them, holds up the other senders' messages for long. Work beyond
/// it is refused with "busy".
struct WorkCap {
    let perDatagram: Int
    let perSecond: Int
    private var inDatagram = 0
    private var inWindow = 0
    private var windowStart = -Double.infinity

    init(perDatagram: Int, perSecond: Int) {
        self.perDatagram = perDatagram
        self.perSecond = perSecond
    }

    /// A new datagram begins.
    mutating func beginDatagram() { inDatagram = 0 }

    /// Whether one more piece of work may run at `now` (seconds, monotonic); counts it if so.
    mutating func take(now: Double) -> Bool {
        if now - windowStart >= 1 {
            windowStart = now
            inWindow = 0
        }
        guard inDatagram < perDatagram, inWindow < perSecond else { return false }
        inDatagram += 1
        inWindow += 1
        return true
    }
}
