import Foundation
import RackDSP
import RackEngine
import RackFiles
import RackWire

/// The documented OSC address space, on the control thread. Every message is checked
/// here (types, NaN/Inf, ranges, names) before anything reaches the render thread, which
/// only ever sees validated `EngineEvent`s through the lock-free queue. All state lives on
/// this one thread: no locks.
///
/// The front door: it checks each message's arguments against the declared signature
/// (`OSCCommands.swift`), routes it to the handler its module registered once, in its own
/// file (`AddressSpace.swift` gathers them), and relays what the render thread applied. Its
/// state is a few owned values, each of one concern: `ReplyChannel` (everything it sends,
/// within `ErrorBudget` and `ReplyBudget`, and the `ExposurePolicy`), `EngineLink` (the
/// state's one writer, `ControlState`, whose `ChangeStream` feedback, MIDI out, the web page,
/// `--record` and the session manager follow; the queue to the render thread), `PlayerSide`,
/// the presets, `Feedback` (subscribers and meters), `SessionSide` (NSM, `--record`) and MIDI.
public final class RackController {
    /// The OSC namespace version (semantic versioning), `/rack/version`.
    public static let namespaceVersion = "1.7.0"

    /// Replies and `/rack/error` within their budgets, the allow list, the policy, clock, log.
    let replies: ReplyChannel
    /// The rack's state, its one writer and the render thread's queue (`EngineLink`).
    let link: EngineLink
    /// The file playing and the media listing.
    let playback: PlayerSide
    public let presets: PresetStore
    /// Subscribers and meters.
    let feedback: Feedback
    /// The session manager and `--record`.
    let session: SessionSide
    /// MIDI control (MIDICommands.swift); nil with `--no-midi`.
    public var midi: MIDIControl? {
        didSet { midi?.noteShown(link.state.targets) }   // feedback sends what changes from here on
    }

    /// A controller whose replies go through `replier` (the socket, or elsewhere for senders
    /// that are not on UDP: the WebSocket; an outbox in tests). Messages come from the source
    /// `serve(from:…)` reads, or are handed to `handle`.
    public init(replier: Replier, host: RackHost, presets: PresetStore, initial: RackState,
                initialPreset: String = "", allow: [AddressRange] = [], recordPath: String? = nil,
                policy: ExposurePolicy = ExposurePolicy()) {
        replies = ReplyChannel(replier: replier, allow: allow, policy: policy)
        link = EngineLink(host: host, replies: replies, state: ControlState(targets: initial, preset: initialPreset))
        self.presets = presets
        feedback = Feedback(replier: replier)
        session = SessionSide(recordPath: recordPath, replier: replier)
        playback = PlayerSide(recorder: session.recorder)
        feedback.admits = { [replies] to, bytes in replies.admitsPush(to: to, bytes: bytes) }
        subscribeSinks()
    }

    /// The sinks of the change stream, in the order each record reaches them: `lastApplied`,
    /// the session manager's dirty flag, subscribers and the web page, MIDI out, `--record`.
    private func subscribeSinks() {
        link.changes.subscribe { [link] record in
            guard case .parameter = record.change, let echo = record.echo else { return }
            link.lastApplied.append(echo)
            if link.lastApplied.count > ControllerTuning.lastAppliedCount { link.lastApplied.removeFirst() }
        }
        link.changes.subscribe { [session] record in
            if case .parameter = record.change, record.source != .rejoin { session.nsm?.markDirty(socket: session.replier) }
        }
        link.changes.subscribe { [feedback] record in feedback.tell(record) }
        link.changes.subscribe { [unowned self] record in midi?.tell(record) }
        link.changes.subscribe { [session, link] record in
            if let engine = link.engine { session.recorder.record(record, engine: engine) }
        }
    }

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
            let now = replies.now
            tick(now: now)
            let hostDue = housekeeping(now)
            do { try session.recorder.flushIfDue(now: now, engine: link.engine) } catch { replies.log(error.message) }
            let due = [hostDue, nextDeadline(now: now)].compactMap { $0 }.min()
            buffer.withUnsafeMutableBytes { buf in
                var timeout = Self.pollTimeout(until: due, now: replies.now)
                while let (n, from) = source.receive(into: buf, timeoutMilliseconds: timeout) {
                    timeout = 0
                    handle(datagram: UnsafeRawBufferPointer(rebasing: buf[0..<n]), from: from)
                    if replies.now - now >= ControllerTuning.housekeepingSeconds { break }
                }
            }
        }
        drainApplied()   // the recording's last lines: the owner ends it and flushes it once
    }

    /// The loop's periodic work at `now` (seconds on `clock`): relay what was applied, free
    /// released rings, note the player's position, and send the meters when they are due.
    func tick(now: Double) {
        serveOnce()
        feedback.expire(now: now)
        player.lastSeconds = playerSeconds
        reportPlayerFailure()
        if feedback.meterClock.take(now: now), let engine = link.engine {
            feedback.sendMeters(engine: engine, host: link.host)
        }
    }

    /// One pass of the loop's periodic work without waiting for packets (tests, and drivers
    /// that own their own loop).
    public func serveOnce() {
        syncWithEngine()
        answerSyncs()
        if let load = player.collect() { PlayerCommands.run(load, playback, context) }
    }

    // MARK: - Packets

    /// Applies one datagram from `from`: every message in it, in order. Senders outside the
    /// allow list (other than the session manager) are ignored without a reply.
    public func handle(datagram: UnsafeRawBufferPointer, from: OSCEndpoint) {
        replies.packetsReceived += 1
        if !replies.allows(from) && session.nsm?.isServer(from) != true { return }
        replies.received(datagram.count, from: from)
        let messages: [(OSCMessage, OSCTimeTag)]
        do {
            messages = try OSCPacket.decode(datagram)
        } catch {
            replies.replyError(to: from, address: "", reason: error.reason)
            return
        }
        link.datagram.begin()
        for (m, tag) in messages { handleMessage(m, timeTag: tag, from: from) }
        link.datagram.begin()
    }

    /// Applies one message: a parameter address, else the command of the table at its address.
    /// A refused message gets `/rack/error ADDRESS REASON`.
    public func handle(_ m: OSCMessage, timeTag: OSCTimeTag, from: OSCEndpoint) {
        link.datagram.begin()
        handleMessage(m, timeTag: timeTag, from: from)
        link.datagram.begin()
    }

    private func handleMessage(_ m: OSCMessage, timeTag: OSCTimeTag, from: OSCEndpoint) {
        // Echoes are taken before every message, so they never pile up in the notice queue
        // (see `Engine.init`), and a rejoined engine takes up the state first.
        syncWithEngine()
        let request = Request(message: m, timeTag: timeTag, from: from)
        link.sender = from
        defer { link.sender = nil }
        do throws(Reason) {
            if let target = ParameterAddress(parsing: m.address) {
                try ParameterCommands.set(target.spec, normalized: target.isNormalized, context, request)
            } else if let command = Self.commands[m.address], !command.sessionManagerOnly || session.nsm?.isServer(from) == true {
                if let refusal = command.declaration.signature.refusal(m.arguments.map(\.argumentKind)) { throw Reason(refusal) }
                try command.handle(modules, context, request)
            } else {
                throw Reason("unknown address" + NameMatch.didYouMean(m.address, in: OSCAddressSpace.userAddresses))
            }
        } catch {
            // An error is never answered with an error: two racks (or a rack and a controller
            // that answers the same way) would bounce it for ever.
            if m.address != OSCReplyAddress.error { replies.replyError(to: from, address: m.address, reason: error.text) }
        }
    }

    // MARK: - The engine's link

    /// Relays what the render thread applied, and follows the driver: after a rejoin the
    /// engine takes up the controller's state.
    func syncWithEngine() {
        link.followHost()
        drainApplied()
        link.restartIfPending(playing: player.playing)
    }

    /// Takes the engine's notices (`EngineLink.drain`): rings the player let go of are freed,
    /// and `/rack/schedule/clear` is answered.
    func drainApplied() {
        link.drain(released: { player.released($0) }, cleared: { replies.reply(SyncCommands.cleared($0), to: OSCEndpoint($1)) })
    }

    /// A new engine: the preset recalls, scheduled events and meter sums in flight to the old
    /// one are forgotten.
    func forgetInFlight() {
        link.forgetInFlight()
        feedback.resetMeters()
    }
}
