import RackEngine
import RackWire

/// What the controller's owner (the driver, the HTTP side, tests) reads and sets: each a view
/// of the value that keeps it (`ReplyChannel`, `EngineLink`, `Feedback`, `SessionSide`,
/// `PlayerSide`).
extension RackController {
    /// Where replies, feedback and meters go.
    public var replier: Replier { replies.replier }
    /// Lines for the user.
    public var log: (String) -> Void {
        get { replies.log }
        set { replies.log = newValue }
    }
    /// Seconds, monotonic (the error budget's window and the loop's timers); tests set their own.
    var clock: () -> Double {
        get { replies.clock }
        set { replies.clock = newValue }
    }
    /// The moment timetags are measured from (`EngineLink.timeTagNow`); tests set their own.
    var timeTagNow: () -> OSCTimeTag {
        get { link.timeTagNow }
        set { link.timeTagNow = newValue }
    }
    /// The endpoints of the rack's own OSC socket, which it never sends to (a subscription
    /// there is refused: it would loop). Set by the owner; nil when there is no socket (tests).
    public var ownEndpoints: OwnEndpoints? {
        get { replies.ownEndpoints }
        set { replies.ownEndpoints = newValue }
    }
    /// Wakes the loop from any thread (the socket's wake): a stream's reader thread calls it
    /// when a read fails. Set by the owner.
    public var wake: @Sendable () -> Void {
        get { player.readFailed }
        set { player.readFailed = newValue }
    }
    /// Whether the HTTP side has a listener of `/rack/meter` (the meters are then taken at
    /// their rate, as for a subscriber); set by the owner.
    public var meterObserved: () -> Bool {
        get { feedback.meterObserved }
        set { feedback.meterObserved = newValue }
    }
    /// The session manager, when rack runs under NSM.
    public var nsm: NSMClient? {
        get { session.nsm }
        set { session.nsm = newValue }
    }

    /// The target of every parameter (what get/dump/presets/the session report).
    public var targets: RackState { link.state.targets }
    /// The preset recalled last (`/rack/dump`).
    var lastPreset: String { link.state.preset }
    /// Preset recalls on their way through the render thread.
    var recallsInFlight: Int { link.state.recallsInFlight }
    /// Scheduled (timetagged) events posted and not yet echoed back as applied: never more
    /// than the engine's `scheduledCapacity` (the rest are refused with `/rack/error`).
    public var scheduledInFlight: Int { link.ledger.scheduled }
    /// The last events the render thread reported as applied (newest last, at most 64).
    public var lastApplied: [AppliedEvent] { link.lastApplied }

    public var droppedErrorReplies: Int { replies.errorBudget.dropped }
    /// Replies to remote senders dropped by the reply budget.
    public var droppedReplies: Int { replies.replyBudget.dropped }
    /// Pushes (feedback, meters) to remote subscribers dropped by their reply budget.
    public var droppedPushes: Int { replies.replyBudget.droppedPushes }
    /// Datagrams handed to the controller.
    public var packetsReceived: Int { replies.packetsReceived }

    /// The file playing and the one swap in flight.
    var player: PlayerSlot { playback.slot }
    /// The media listing kept between requests.
    var media: MediaCatalog { playback.media }

    /// `sink` follows the change stream from now on (after the controller's own sinks): the
    /// HTTP side's value pushes (`ChangeRecord.feedbackMessage`, what subscribers are told).
    public func subscribeToChanges(_ sink: @escaping (ChangeRecord) -> Void) { link.changes.subscribe(sink) }

    /// Sees what subscribers are told that is not a change of state (the player's failure) and
    /// every meter reading (15 a second), whether or not anyone subscribed: the HTTP side's
    /// other pushes.
    public var feedbackObserver: ((OSCMessage) -> Void)? {
        get { feedback.observer }
        set { feedback.observer = newValue }
    }

    /// Ends every subscription of `endpoint` (a WebSocket that closed).
    public func forget(_ endpoint: OSCEndpoint) { feedback.unsubscribe(endpoint) }

    /// Stops the player threads (at exit).
    public func shutDown() { player.stopAll() }

    /// Ends the recording where the rack has got to (at exit, before the last flush).
    public func endRecording() { session.recorder.recordEnd(engine: link.engine) }

    /// Writes and syncs the recording so far (an append-only journal of whole lines). A problem
    /// is logged and kept in `recordingFailure`.
    public func flushRecording() {
        do { try session.recorder.flush(engine: link.engine) } catch {
            log(error.message)
            session.recordingFailure = error
        }
    }

    /// The last problem of the final flush of `--record` (lines that could not be written):
    /// `rack run` exits with it rather than 0.
    public var recordingFailure: RackError? { session.recordingFailure }
}
