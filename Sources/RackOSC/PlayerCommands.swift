import Foundation
import RackDSP
import RackEngine
import RackIO
import RackWire

/// The player over OSC (`/rack/player/...`): each handler gets the `PlayerSide` and the context.
enum PlayerCommands {
    static let all = [
        OSCCommand(.playerLoad, in: \.player) { p, c, r throws(Reason) in try load(p, c, r) },
        OSCCommand(.playerPlay, in: \.player) { p, c, r throws(Reason) in try transport(p, c, r, playing: true) },
        OSCCommand(.playerStop, in: \.player) { p, c, r throws(Reason) in try transport(p, c, r, playing: false) },
        OSCCommand(.playerLoop, in: \.player) { p, c, r throws(Reason) in try loop(p, c, r) },
        OSCCommand(.playerSeek, in: \.player) { p, c, r throws(Reason) in try seek(p, c, r) },
        OSCCommand(.playerState, in: \.player) { p, c, r in c.reply(p.stateMessage, to: r.from) },
        OSCCommand(.playerMedia, in: \.player) { p, c, r throws(Reason) in try listMedia(p, c, r) },
    ]

    /// `/rack/player/load PATH`: plays the file from its start.
    static func load(_ p: PlayerSide, _ c: CommandContext, _ r: Request) throws(Reason) {
        let path = r.arguments[0].string ?? ""   // the signature took one string
        guard r.from.isLocal else {
            // A remote sender: only files under --media-dir, opened by their real path, and one
            // answer for every refusal or failure.
            guard let real = c.policy.mediaFile(path) else { throw Reason(ExposurePolicy.refusedLoad) }
            return run(PlayerLoad(path: real, startSeconds: 0, from: r.from, address: r.address), p, c)
        }
        run(PlayerLoad(path: path, startSeconds: 0, from: r.from, address: r.address), p, c)
    }

    /// `/rack/player/play`, `/rack/player/stop`: at the message's time.
    static func transport(_ p: PlayerSide, _ c: CommandContext, _ r: Request, playing: Bool) throws(Reason) {
        p.slot.playing = playing
        try c.post(EngineEvent(c.sample(for: r.timeTag), playing ? .play : .stop))
    }

    /// `/rack/player/loop 0|1`.
    static func loop(_ p: PlayerSide, _ c: CommandContext, _ r: Request) throws(Reason) {
        guard let v = r.arguments[0].number, v == 0 || v == 1 else { throw Reason("expects 0 or 1") }
        p.slot.loop = v == 1
        p.recorder.recordLoop(v == 1, engine: c.engine)
    }

    /// `/rack/player/seek SECONDS`: reloads the file from there (a time outside the file is
    /// clamped, applied and reported).
    static func seek(_ p: PlayerSide, _ c: CommandContext, _ r: Request) throws(Reason) {
        let s = r.arguments[0].number ?? .nan   // the signature took one number
        guard s.isFinite else { throw Reason("seconds must be finite") }
        guard let current = p.slot.stream else { throw Reason("no file is loaded") }
        // A seek goes to the newest file asked for (a load may still be waiting its turn).
        let path = p.slot.newestPath ?? current.path
        let duration = path == current.path ? current.durationSeconds : .infinity
        if s < 0 || s > duration {
            c.report(r, "seek \(formatNumber(s)) s clamped to \(formatNumber(min(max(s, 0), duration))) s")
        }
        run(PlayerLoad(path: path, startSeconds: min(max(s, 0), duration), from: r.from, address: r.address), p, c)
    }

    /// `/rack/player/media`: the files any sender may load, in one message (the listing kept
    /// while the directories do not change; within the cap on listings).
    static func listMedia(_ p: PlayerSide, _ c: CommandContext, _ r: Request) throws(Reason) {
        guard c.datagram.mediaListings.take(now: c.now) else { throw .mediaListings }
        c.reply(OSCMessage(OSCCommandDeclaration.playerMedia.address, p.media.files(of: c.policy).map { .string($0) }), to: r.from)
    }

    /// Opens `load`'s file (the previous file keeps playing if this fails) and hands its ring to
    /// the engine, which crossfades to it, or defers it. Failures go to `load.from` as
    /// `/rack/error address …`, or to the log when it is nil.
    static func run(_ load: PlayerLoad, _ p: PlayerSide, _ c: CommandContext) {
        guard let engine = c.engine else { return }
        c.awaitEchoes()
        switch p.slot.load(load, into: engine) {
        case .loaded, .deferred:
            break
        case .busy:
            if let from = load.from { c.replyError(to: from, address: load.address, reason: Reason.busy.text) }
        case let .failed(error):
            var reason = error.description
            if let from = load.from, !from.isLocal { reason = ExposurePolicy.refusedLoad }
            if let from = load.from { c.replyError(to: from, address: load.address, reason: reason) } else { c.log(reason) }
        }
    }
}

/// The player for the driver and the loop: loads, failures, an engine replaced, the first stream.
extension RackController {
    /// `/rack/player/state s:file i:playing i:loop` (`PlayerSide.stateMessage`).
    public var playerStateMessage: OSCMessage { playback.stateMessage }

    /// Plays `path` from `startSeconds` (`PlayerCommands.run`). Failures go to `from` as
    /// `/rack/error address …`, or to the log when `from` is nil.
    public func loadPlayer(path: String, startSeconds: Double, from: OSCEndpoint?, address: String) {
        PlayerCommands.run(PlayerLoad(path: path, startSeconds: startSeconds, from: from, address: address), playback, context)
    }

    /// A file that failed while it played (truncated, corrupt) is reported once: a line in the
    /// log, `/rack/error /rack/player REASON` to subscribers (and the page), and REASON in
    /// `/rack/status` until another file or position is loaded. The transport stops there (as
    /// `/rack/player/stop` does, fading out), and the report waits until it has: the position
    /// the status gives with it is where the transport stands, not one the fade goes past.
    func reportPlayerFailure() {
        if let error = player.stream?.takeUnreportedError() {
            player.playing = false
            let posted = (try? link.post(EngineEvent(.now, .stop))) ?? false
            player.stopping = FailureStop(reason: "stopped: " + error.description, stream: player.stream.map(ObjectIdentifier.init),
                                          posted: posted ? link.engine?.postedCount : nil)
        }
        guard let stop = player.stopping, hasStopped(stop) else { return }
        player.stopping = nil
        log(stop.reason)
        feedback.notify(OSCMessage(OSCReplyAddress.error, [.string(OSCAddressSpace.player), .string(stop.reason)]))
        // Unless another file was loaded meanwhile (its status is its own).
        if player.stream.map(ObjectIdentifier.init) == stop.stream { player.failure = stop.reason }
    }

    /// Whether the stop `stop` posted has been taken by the render thread and its fade played
    /// out: the engine's clock has passed the sample it was first seen taken at by the fade
    /// and a whole period. At once when nothing was posted (no server runs) or the engine
    /// went.
    private func hasStopped(_ stop: FailureStop) -> Bool {
        guard let posted = stop.posted, link.linked, let engine = link.engine else { return true }
        guard engine.takenCount >= posted else { return false }
        guard let takenBy = stop.takenBy else {
            player.stopping?.takenBy = engine.sampleTime
            return false
        }
        let fadeFrames = Int64((PlayerTuning.fadeSeconds * engine.sampleRate).rounded(.up))
        return engine.sampleTime >= takenBy + fadeFrames + Int64(engine.maxFrames)
    }

    /// Why the player stopped by itself, empty when it did not (`/rack/status`).
    public var playerFailure: String { player.failure }

    /// The driver replaced the engine (a server came back at another sample rate): the streams
    /// fed the old engine, which is gone with its rings' users; drop them and play the same file
    /// from the same place through the new one. Targets carry over (the new engine starts from
    /// them); events still in flight to the old engine are lost.
    public func engineReplaced() {
        let previous = player.dropAll()
        forgetInFlight()
        if let previous { loadPlayer(path: previous.path, startSeconds: previous.seconds, from: nil, address: "") }
    }

    /// Takes over a stream the driver attached to the engine before it started.
    /// The first stream, attached before the engine ran: the recording starts from it and
    /// the state of the moment.
    public func adoptPlayer(_ s: PlayerStream) {
        player.adopt(s)
        session.recorder.recordStart(state: targets, preset: lastPreset, file: s.path, loop: player.loop, positionSeconds: s.startSeconds)
    }

    /// Whether the player loops (`/rack/player/loop`).
    public var loop: Bool { player.loop }

    /// Position of the player in the file, in seconds.
    public var playerSeconds: Double { playback.seconds(in: link.engine) }

    /// The file playing, if any.
    public var playerPath: String? { player.stream?.path }
}
