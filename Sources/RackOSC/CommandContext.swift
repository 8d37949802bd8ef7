import RackEngine
import RackWire

/// What a command's handler may do, and nothing else of the controller: submit a change of the
/// rack's state or post an engine event at a time (`sample(for:)` maps a timetag to the engine's
/// sample clock), read the targets, reply to a sender or refuse with a reason, and count its
/// costly work against the datagram's caps (swift-nio's narrow seam between a channel and its
/// handlers). A handler gets this and its own module's state (`CommandModules`).
struct CommandContext {
    private let link: EngineLink
    private let replies: ReplyChannel

    init(link: EngineLink, replies: ReplyChannel) {
        self.link = link
        self.replies = replies
    }

    // MARK: - The engine and the state

    /// Submits `change` at `t` (`EngineLink.submit`: posted all or nothing, then committed).
    func submit(_ change: StateChange, at t: EventTime, origin: OSCEndpoint?) throws(Reason) {
        try link.submit(change, at: t, origin: origin)
    }

    /// Posts `event` to the render thread (`EngineLink.post`); false while no server runs.
    @discardableResult
    func post(_ event: EngineEvent) throws(Reason) -> Bool { try link.post(event) }

    /// When a message of timetag `tag` applies (`EngineLink.sample(for:)`).
    func sample(for tag: OSCTimeTag) throws(Reason) -> EventTime { try link.sample(for: tag) }

    /// Something was handed to the render thread outside `post`: its echo is awaited.
    func awaitEchoes() { link.awaitEchoes() }

    /// The engine (its sample clock, counters and meters); nil before the driver made one.
    var engine: Engine? { link.engine }
    /// Whether the engine is rendered (a server runs).
    var engineLinked: Bool { link.linked }
    /// The engine's sample rate (Hz).
    var sampleRate: Double { link.sampleRate }
    /// The target of every parameter.
    var targets: RackState { link.state.targets }
    /// The preset recalled last.
    var lastPreset: String { link.state.preset }
    /// Whether `id`'s target is `value` already.
    func isTarget(_ id: ParameterID, _ value: Double) -> Bool { link.state.isTarget(id, value) }
    /// The datagram being handled: its timetags, the parameters it set, its costly work.
    var datagram: DatagramState {
        get { link.datagram }
        nonmutating _modify { yield &link.datagram }
    }

    // MARK: - Replies

    /// Sends `m` to `to`, within its reply budget (`ReplyChannel.reply`).
    func reply(_ m: OSCMessage, to: OSCEndpoint) { replies.reply(m, to: to) }
    /// `/rack/error ADDRESS REASON` to `to`, within the error budget.
    func replyError(to: OSCEndpoint, address: String, reason: String) { replies.replyError(to: to, address: address, reason: reason) }
    /// An error reply for `request` that does not refuse it (a value clamped, then applied).
    func report(_ request: Request, _ reason: String) { replies.report(request, reason) }
    /// Whether `e` is local or `--allow`ed (`ReplyChannel.trusts`).
    func trusts(_ e: OSCEndpoint) -> Bool { replies.trusts(e) }
    /// Whether a datagram sent to `target` reaches the rack's own OSC socket.
    func isOwn(_ target: OSCEndpoint) -> Bool { replies.isOwn(target) }
    /// What remote senders may have (leases, media directories).
    var policy: ExposurePolicy { replies.policy }
    /// Seconds on the controller's clock.
    var now: Double { replies.now }
    /// A line for the user.
    func log(_ line: String) { replies.log(line) }
}
