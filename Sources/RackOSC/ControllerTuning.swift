import Foundation

/// Defaults of the OSC side, shared by `rack run`, `rack send` and the controller.
public enum OSCDefaults {
    /// The UDP port `rack run` listens on and `rack send` sends to unless told otherwise.
    public static let port: UInt16 = 8000
    /// The address `rack run` binds to unless told otherwise: loopback, so that only this
    /// machine can control the rack.
    public static let host = "127.0.0.1"
}

/// Constants of the control thread.
public enum ControllerTuning {
    /// How often, in seconds, the control loop looks for the render thread's echoes while it
    /// awaits them (`RackController.awaitsEchoes`): feedback of a change reaches subscribers,
    /// the web page and MIDI out within this of the cycle that applied it (the period the
    /// loop used to poll at always).
    public static let echoLookSeconds = 0.005
    /// `/sync` requests waiting at most; one more is refused ("busy"). A sender that paces
    /// itself by them has one or two in flight.
    public static let pendingSyncs = 256
    /// How long, in seconds, the loop keeps looking for echoes after the last post or echo: an
    /// immediate event is applied in the next JACK cycle, and a long period (8,192 frames at
    /// 22.05 kHz) lasts 0.37 s.
    public static let echoWindowSeconds = 0.5
    /// How often, in seconds, the loop looks for what MIDI input made (program changes, MIDI
    /// learn, controller moves) while `midi_in` has a connection; never while it has none. The
    /// round trip from a program change to its first feedback CC is bounded by 56 ms, two of
    /// these looks and three periods at 256 frames and 48 kHz.
    public static let midiLookSeconds = 0.02
    /// The longest sleep of the control loop, in seconds, however little is pending: a safety
    /// net under the wakes (a datagram, JACK's notifications, the WebSocket's inbox, a stop
    /// signal), so that anything no wake announces is looked at within the promised second.
    public static let longestSleepSeconds = 1.0
    /// Longest stretch, in seconds, the control loop spends handling datagrams before it runs
    /// its periodic work (applied-event echoes, meters, the driver's loss detection and rejoin,
    /// recording flushes), however fast datagrams keep coming. With one datagram's handling on
    /// top (at most one preset write: `presetWritesPerPacket`) the work runs well within 50 ms.
    public static let housekeepingSeconds = 0.02
    /// How far ahead, in seconds, a timetag may lie. Timetags are mapped to samples through
    /// JACK's 32-bit frame clock as a signed difference, which wraps after 2^31 frames: 12.4 h
    /// at 48 kHz, 1.55 h at 384 kHz (the highest rate rack runs at). One hour stays clear of it
    /// at every rate; later timetags are refused with `/rack/error`, never applied at once.
    public static let scheduleHorizonSeconds = 3600.0
    /// The engine's scheduled slots (`Engine.scheduledCapacity`: 4,096 live) kept for 127.0.0.1
    /// and `--allow`ed peers, and those one remote address may hold, each this fraction of them:
    /// a quarter (1,024 of 4,096), what `rack send` keeps in flight at most, so that a
    /// `rack send` from anywhere fits its share; remote addresses together hold the other three
    /// quarters (3,072), and no remote sender can starve a local one.
    public static let scheduleShareDivisor = 4
    /// How `capacity` scheduled slots are shared (`FairShare`, the rule subscriber places follow).
    static func scheduleShare(capacity: Int) -> FairShare {
        FairShare(capacity: capacity, trustedReserve: capacity / scheduleShareDivisor,
                  perRemoteAddress: capacity / scheduleShareDivisor)
    }
    /// Preset files written (saved or deleted) per datagram at most: each is a write and two
    /// fsyncs on the control thread, so a bundle of saves cannot stall OSC for the others.
    public static let presetWritesPerPacket = 1
    /// `/rack/player/media` listings per datagram and per second at most (all senders
    /// together): each may walk the media directories (`maximumWalkedMediaEntries`), so a
    /// datagram of 200 of them, which held a `/ping` behind it for 37.9 s with 30,000 files,
    /// costs one walk.
    public static let mediaListingsPerPacket = 1
    public static let mediaListingsPerSecond = 4
    /// `/nsm/client/save` per datagram and per second at most: each is a write and two fsyncs
    /// (2,000 in one datagram held the control thread for 1.9 s).
    public static let sessionSavesPerPacket = 1
    public static let sessionSavesPerSecond = 4
    /// `/rack/error` replies sent per second at most (a flood of bad packets is not amplified).
    public static let errorRepliesPerSecond = 200
    /// Of those, the ones remote senders (neither 127.0.0.1 nor `--allow`ed) cannot take: this
    /// machine's user is answered whatever remote senders do.
    public static let errorRepliesTrustedReserve = 50
    /// `/rack/error` replies one remote address gets per second at most (so 8 remote addresses
    /// are needed to spend the share of remote senders).
    public static let errorRepliesPerRemoteAddress = 20
    /// stderr lines about MIDI program changes per second at most (a flood of unknown programs
    /// wrote 571 KB in 4 s before); the next line says how many were left out.
    public static let midiLinesPerSecond = 10
    /// Places in the subscriber table, and in the meter subscriber table.
    public static let maximumSubscribers = 64
    /// Places of each table that remote subscribers (neither 127.0.0.1 nor `--allow`ed) cannot
    /// take: 16 remote addresses of 4 places each no longer lock this machine's user out.
    public static let subscriberTrustedReserve = 16
    /// Places one remote address may hold in the subscriber and meter tables together.
    public static let maximumSubscriptionsPerAddress = 4
    /// How subscriber places are shared (each table alone; a remote address's places counted
    /// over both tables).
    static let subscriberPlaces = FairShare(capacity: maximumSubscribers, trustedReserve: subscriberTrustedReserve,
                                            perRemoteAddress: maximumSubscriptionsPerAddress)
    /// `/rack/meter` messages per second, and the page's `/rack/status` pushes while it listens
    /// (each on a `PushClock`: a fixed grid).
    public static let meterHz = 15.0
    /// Longest time, in seconds, a `--record` file lags behind the changes applied.
    public static let recordFlushSeconds = 2.0
    /// Applied parameter changes kept for `RackController.lastApplied`.
    public static let lastAppliedCount = 64
}

/// The control thread's clock: seconds since an arbitrary origin, never going back.
func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
