import Foundation
import RackDSP
import RackEngine
import RackFiles
import RackIO
import RackWire

/// The documented OSC address space, on the control thread. Every message is checked
/// here (types, NaN/Inf, ranges, names) before anything reaches the render thread, which
/// only ever sees validated `EngineEvent`s through the lock-free queue. All state lives on
/// this one thread: no locks.
///
/// The commands are declared once (`OSCCommands.swift`), and each module (presets, player,
/// MIDI, …) registers its handlers once, in its own file (`AddressSpace.swift` gathers them);
/// the controller checks each message's arguments against the declared signature, routes it
/// to its handler and relays what the render thread applied.
/// The rack's state has one writer, `ControlState`: every transport submits a typed change
/// (`submit`), the engine's echoes come back to it, and what it yields is the one
/// `ChangeStream` that feedback, MIDI out, the web page, `--record` and the session manager follow.
/// Its collaborators each keep one concern: `PlayerSlot` (the file playing and the one swap in flight), `Feedback`
/// (subscribers and meters), `SessionRecorder` (`--record`) and `ErrorBudget` (the rate limit
/// on `/rack/error`). Everything it sends goes through a `Replier`: the UDP socket, or an
/// in-memory outbox in tests. What a remote sender may have is bounded by the `ExposurePolicy`
/// (reply bytes through `ReplyBudget`, subscription leases, `--media-dir`).
public final class RackController {
    /// The OSC namespace version (semantic versioning), `/rack/version`.
    public static let namespaceVersion = "1.7.0"

    /// Where replies, feedback and meters go: the socket (through the HTTP bridge), so they
    /// leave from the rack's port.
    public let replier: Replier
    public let presets: PresetStore
    let host: RackHost
    private let allow: [AddressRange]
    /// What remote senders may have (leases, media directories).
    let policy: ExposurePolicy
    /// Preset recalls on their way through the render thread.
    var recallsInFlight: Int { state.recallsInFlight }
    /// The rack's state and its one writer (targets, the preset recalled last): every
    /// transport submits its changes to it (`submit`), and the engine's echoes come back to it
    /// (`drainApplied`). Written in this file only, through `ControlState`'s methods.
    private(set) var state: ControlState
    /// The change records of `state`, which every sink of feedback is derived from.
    private let changes = ChangeStream()
    /// The target of every parameter (what get/dump/presets/the session report).
    public var targets: RackState { state.targets }
    /// The preset recalled last (`/rack/dump`).
    var lastPreset: String { state.preset }
    /// `/sync` requests waiting for the render thread to take what came before them.
    var pendingSyncs: [PendingSync] = []
    /// Scheduled events and restarts in flight to the render thread.
    var ledger = EngineLedger()
    /// Scheduled (timetagged) events posted and not yet echoed back as applied: never more
    /// than the engine's `scheduledCapacity` (the rest are refused with `/rack/error`).
    public var scheduledInFlight: Int { ledger.scheduled }
    /// Whether the engine was rendered at the last look (`host.isRunning`).
    var engineLinked: Bool
    /// The engine must take up the controller's state (the driver rejoined; posted as soon
    /// as its queue has room).
    var restartPending = false
    /// The datagram being handled: its timetags, the parameters it set, its costly work.
    var datagram = DatagramState()
    /// The sender of the message being handled: the scheduled events it posts are its own
    /// (their share, `/rack/schedule/clear`).
    var sender: OSCEndpoint?
    /// The media listing kept between requests.
    let media = MediaCatalog()
    /// Lines for the user.
    public var log: (String) -> Void = { _ in }
    /// The session manager, when rack runs under NSM.
    public var nsm: NSMClient?
    /// MIDI control (MIDICommands.swift); nil with `--no-midi`.
    public var midi: MIDIControl? {
        didSet { midi?.noteShown(state.targets) }   // feedback sends what changes from here on
    }

    let player = PlayerSlot()
    let feedback: Feedback
    let recorder: SessionRecorder
    private var errorBudget = ErrorBudget()
    private var replyBudget = ReplyBudget()
    /// When the meters were last taken (seconds on `clock`).
    private(set) var lastMeterTime = 0.0
    /// Until when (seconds on `clock`) the loop looks for echoes at the short interval: a while
    /// after the last post and the last echo (`awaitEchoes`).
    var echoesAwaitedUntil = -Double.infinity
    /// Whether the HTTP side has a listener of `/rack/meter` (the meters are then taken at
    /// their rate, as for a subscriber); set by the owner.
    public var meterObserved: () -> Bool = { false }
    /// Wakes the loop from any thread (the socket's wake): a stream's reader thread calls it
    /// when a read fails. Set by the owner.
    public var wake: @Sendable () -> Void = {} {
        didSet { player.readFailed = wake }
    }
    /// The endpoints of the rack's own OSC socket, which it never sends to (a subscription
    /// there is refused: it would loop). Set by the owner; nil when there is no socket (tests).
    public var ownEndpoints: OwnEndpoints?
    /// Seconds, monotonic (the error budget's window and the loop's timers); tests set their own.
    var clock: () -> Double = monotonicSeconds
    /// The moment timetags are measured from (the wall clock, as senders' timetags are); tests
    /// set their own, so that how long a test process waits to run moves no timetag.
    var timeTagNow: () -> OSCTimeTag = { .now() }

    public var droppedErrorReplies: Int { errorBudget.dropped }
    /// Replies to remote senders dropped by the reply budget.
    public var droppedReplies: Int { replyBudget.dropped }
    /// Pushes (feedback, meters) to remote subscribers dropped by their reply budget.
    public var droppedPushes: Int { replyBudget.droppedPushes }
    public private(set) var packetsReceived = 0
    /// The last events the render thread reported as applied (newest last, at most 64).
    public internal(set) var lastApplied: [AppliedEvent] = []

    /// A controller whose replies go through `replier` (the socket, or elsewhere for senders
    /// that are not on UDP: the WebSocket; an outbox in tests). Messages come from the source
    /// `serve(from:…)` reads, or are handed to `handle`.
    public init(replier: Replier, host: RackHost, presets: PresetStore, initial: RackState,
                initialPreset: String = "", allow: [AddressRange] = [], recordPath: String? = nil,
                policy: ExposurePolicy = ExposurePolicy()) {
        self.replier = replier
        self.host = host
        self.presets = presets
        state = ControlState(targets: initial, preset: initialPreset)
        self.allow = allow
        self.policy = policy
        feedback = Feedback(replier: replier)
        recorder = SessionRecorder(path: recordPath)
        engineLinked = host.isRunning
        feedback.admits = { [unowned self] to, bytes in
            trusts(to) || replyBudget.spendPush(bytes, to: to.address, now: clock())
        }
        subscribeSinks()
    }

    /// The sinks of the change stream, in the order each record reaches them: `lastApplied`,
    /// the session manager's dirty flag, subscribers and the web page, MIDI out, `--record`.
    private func subscribeSinks() {
        changes.subscribe { [unowned self] record in
            guard case .parameter = record.change, let echo = record.echo else { return }
            lastApplied.append(echo)
            if lastApplied.count > ControllerTuning.lastAppliedCount { lastApplied.removeFirst() }
        }
        changes.subscribe { [unowned self] record in
            if case .parameter = record.change, record.source != .rejoin { nsm?.markDirty(socket: replier) }
        }
        changes.subscribe { [unowned self] record in feedback.tell(record) }
        changes.subscribe { [unowned self] record in midi?.tell(record) }
        changes.subscribe { [unowned self] record in
            if let engine { recorder.record(record, engine: engine) }
        }
    }

    var engine: Engine? { host.engine }
    var sampleRate: Double { engine?.sampleRate ?? 48_000 }

    // MARK: - The loop

    /// Serves until `shouldStop` says so, reading datagrams from `source` (the UDP socket):
    /// applies them, and between packets relays what the render thread applied (subscribers,
    /// recording), frees released rings, and runs `housekeeping` (the driver's reconnection,
    /// MIDI, the HTTP side), which returns when it next has work of its own (nil: none).
    /// The periodic work (`tick`, `housekeeping`, the recording's flush) runs first in every
    /// pass; then the loop sleeps until a datagram or a wake of the source comes, or the first
    /// deadline of what is pending (`nextDeadline` and the housekeeping's) is due. Datagrams are
    /// handled until none waits or `ControllerTuning.housekeepingSeconds` have passed, so a
    /// sustained stream never starves it: it runs at least every 20 ms plus one datagram's handling.
    public func serve(from source: DatagramSource, shouldStop: () -> Bool, housekeeping: (Double) -> Double?) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !shouldStop() {
            let now = clock()
            tick(now: now)
            let hostDue = housekeeping(now)
            do { try recorder.flushIfDue(now: now, engine: engine) } catch { log(error.message) }
            let due = [hostDue, nextDeadline(now: now)].compactMap { $0 }.min()
            buffer.withUnsafeMutableBytes { buf in
                var timeout = Self.pollTimeout(until: due, now: clock())
                while let (n, from) = source.receive(into: buf, timeoutMilliseconds: timeout) {
                    timeout = 0
                    handle(datagram: UnsafeRawBufferPointer(rebasing: buf[0..<n]), from: from)
                    if clock() - now >= ControllerTuning.housekeepingSeconds { break }
                }
            }
        }
        drainApplied()
        flushRecording()
    }

    /// The loop's periodic work at `now` (seconds on `clock`): relay what was applied, free
    /// released rings, note the player's position, and send the meters when they are due.
    func tick(now: Double) {
        serveOnce()
        feedback.expire(now: now)
        player.lastSeconds = playerSeconds
        reportPlayerFailure()
        if now - lastMeterTime >= 1 / ControllerTuning.meterHz {
            if let engine { feedback.sendMeters(engine: engine, host: host) }
            lastMeterTime = now
        }
    }

    /// One pass of the loop's periodic work without waiting for packets (tests, and drivers
    /// that own their own loop).
    public func serveOnce() {
        syncWithEngine()
        answerSyncs()
        if let load = player.collect() { run(load) }
    }

    /// Stops the player threads (at exit).
    public func shutDown() { player.stopAll() }

    /// Ends the recording where the rack has got to (at exit, before the last flush).
    public func endRecording() { recorder.recordEnd(engine: engine) }

    /// Writes and syncs the recording so far (an append-only journal of whole lines). A problem
    /// is logged and kept in `recordingFailure`.
    public func flushRecording() {
        do { try recorder.flush(engine: engine) } catch {
            log(error.message)
            recordingFailure = error
        }
    }

    /// The last problem of the final flush of `--record` (lines that could not be written):
    /// `rack run` exits with it rather than 0.
    public private(set) var recordingFailure: RackError?

    // MARK: - Packets

    /// Applies one datagram from `from`: every message in it, in order. Senders outside the
    /// allow list (other than the session manager) are ignored without a reply.
    public func handle(datagram: UnsafeRawBufferPointer, from: OSCEndpoint) {
        packetsReceived += 1
        if !allow.isEmpty && !allow.contains(where: { $0.contains(from) }) && nsm?.isServer(from) != true { return }
        replyBudget.received(datagram.count, from: from.address, now: clock())
        let messages: [(OSCMessage, OSCTimeTag)]
        do {
            messages = try OSCPacket.decode(datagram)
        } catch {
            replyError(to: from, address: "", reason: error.reason)
            return
        }
        beginPacket()
        for (m, tag) in messages { handleMessage(m, timeTag: tag, from: from) }
        beginPacket()
    }

    /// Applies one message: a parameter address, else the command of the table at its address.
    /// A refused message gets `/rack/error ADDRESS REASON`.
    public func handle(_ m: OSCMessage, timeTag: OSCTimeTag, from: OSCEndpoint) {
        beginPacket()
        handleMessage(m, timeTag: timeTag, from: from)
        beginPacket()
    }

    /// Forgets the per-datagram state (`DatagramState.begin`).
    private func beginPacket() { datagram.begin() }

    private func handleMessage(_ m: OSCMessage, timeTag: OSCTimeTag, from: OSCEndpoint) {
        // Echoes are taken before every message, so they never pile up in the notice queue
        // (see `Engine.init`), and a rejoined engine takes up the state first.
        syncWithEngine()
        let request = Request(message: m, timeTag: timeTag, from: from)
        sender = from
        defer { sender = nil }
        do throws(Reason) {
            if let target = ParameterAddress(parsing: m.address) {
                try setParameter(target.spec, normalized: target.isNormalized, request)
            } else if let command = Self.commands[m.address], !command.sessionManagerOnly || nsm?.isServer(from) == true {
                if let refusal = command.declaration.signature.refusal(m.arguments.map(\.argumentKind)) { throw Reason(refusal) }
                try command.handle(self, request)
            } else {
                throw Reason("unknown address" + NameMatch.didYouMean(m.address, in: OSCAddressSpace.userAddresses))
            }
        } catch {
            // An error is never answered with an error: two racks (or a rack and a controller
            // that answers the same way) would bounce it for ever.
            if m.address != Self.errorAddress { replyError(to: from, address: m.address, reason: error.text) }
        }
    }

    // MARK: - The state's one writer

    /// The one way a transport changes the rack's state: `change`'s events at `t` (now or an
    /// engine sample) are posted, all or nothing (see `post(_:)`), then the state commits it. Nothing is
    /// the target that was refused (queue full, too many scheduled, no server for a timetag).
    /// While no server runs, the change's records go to the change stream at once (the engine
    /// takes the state up on rejoin); otherwise they follow from the engine's echoes.
    /// An immediate change that changes nothing (`ControlState.news`) is left out. `origin`:
    /// the endpoint that asked, which its records carry (`ChangeRecord.origin`).
    func submit(_ change: StateChange, at t: EventTime, origin: OSCEndpoint?) throws(Reason) {
        guard let change = t == .now ? state.news(in: change) : change else { return }
        let posted = try post(state.events(for: change, at: t))
        changes.publish(state.commit(change, at: t, posted: posted, origin: origin))
    }

    /// Takes the engine's notices, in order: each event applied goes back to the state, and
    /// what it changed goes to the change stream; rings the player let go of are freed; a
    /// restart's drops are logged.
    func drainApplied() {
        guard let engine else { return }
        while let notice = engine.nextNotice() {
            awaitEchoes()
            switch notice {
            case let .applied(e):
                if ledger.echoed(e) { changes.publish(state.absorb(e)) }
            case let .restarted(dropped):
                ledger.restarted()
                if dropped > 0 {
                    log("\(dropped) timetagged changes waiting when the JACK server went were dropped (never applied, never reported)")
                }
            case let .releasedRing(ring):
                player.released(ring)
            case let .clearedScheduled(owner, dropped):
                state.forgetRecalls(ledger.cleared(dropped, by: owner))
                scheduleCleared(dropped, for: owner)
            }
        }
    }

    /// A new engine: the preset recalls, scheduled events and meter sums in flight to the old
    /// one are forgotten.
    func forgetInFlight() {
        state.forgetInFlight()
        ledger.reset()
        feedback.resetMeters()
    }

    // MARK: - Replies

    /// Sends a reply, within the reply budget of a remote sender; never to the rack's own socket
    /// (a datagram forged to come from it would otherwise start a loop).
    func reply(_ m: OSCMessage, to: OSCEndpoint) {
        guard !isOwn(to) else { return }
        let bytes = m.encoded()
        guard to.isLocal || replyBudget.spend(bytes.count, to: to.address, now: clock()) else { return }
        replier.send(bytes, to: to)
    }

    /// `sink` follows the change stream from now on (after the controller's own sinks): the
    /// HTTP side's value pushes (`ChangeRecord.feedbackMessage`, what subscribers are told).
    public func subscribeToChanges(_ sink: @escaping (ChangeRecord) -> Void) { changes.subscribe(sink) }

    /// Sees what subscribers are told that is not a change of state (the player's failure) and
    /// every meter reading (15 a second), whether or not anyone subscribed: the HTTP side's
    /// other pushes.
    public var feedbackObserver: ((OSCMessage) -> Void)? {
        get { feedback.observer }
        set { feedback.observer = newValue }
    }

    /// Ends every subscription of `endpoint` (a WebSocket that closed).
    public func forget(_ endpoint: OSCEndpoint) { feedback.unsubscribe(endpoint) }

    /// Whether `e` is this machine's user (127.0.0.1) or a peer `--allow` names: the budgets keep
    /// a reserve for them that remote senders cannot take.
    func trusts(_ e: OSCEndpoint) -> Bool {
        e.isLocal || allow.contains { $0.contains(e) }
    }

    /// Whether a datagram sent to `target` reaches the rack's own OSC socket.
    func isOwn(_ target: OSCEndpoint) -> Bool { ownEndpoints?.reaches(target, now: clock()) == true }

    /// The address of error replies.
    static let errorAddress = "/rack/error"

    /// `/rack/error ADDRESS REASON`, within the error budget.
    func replyError(to: OSCEndpoint, address: String, reason: String) {
        guard errorBudget.spend(to: to.address, trusted: trusts(to), now: clock()) else { return }
        reply(OSCMessage(Self.errorAddress, [.string(address), .string(reason)]), to: to)
    }

    /// An error reply for `request` that does not refuse it (a value clamped, then applied).
    func report(_ request: Request, _ reason: String) {
        replyError(to: request.from, address: request.address, reason: reason)
    }
}

/// Where the control loop's datagrams come from: the UDP socket, or a script in tests.
public protocol DatagramSource: AnyObject {
    /// Waits up to `timeoutMilliseconds` for a datagram; its size and sender, or nil.
    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) -> (Int, OSCEndpoint)?
}

extension UDPSocket: DatagramSource {}
