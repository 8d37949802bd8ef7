import Foundation
import RackEngine
import RackIO
import RackWire

/// The player over OSC (`/rack/player/...`) and for the driver (adopt, engine replaced).
extension RackController {
    static let playerCommands = [
        OSCCommand(.playerLoad) { c, r throws(Reason) in try c.playerLoad(r) },
        OSCCommand(.playerPlay) { c, r throws(Reason) in try c.playerTransport(r, playing: true) },
        OSCCommand(.playerStop) { c, r throws(Reason) in try c.playerTransport(r, playing: false) },
        OSCCommand(.playerLoop) { c, r throws(Reason) in try c.playerLoop(r) },
        OSCCommand(.playerSeek) { c, r throws(Reason) in try c.playerSeek(r) },
        OSCCommand(.playerState) { c, r in c.playerState(r) },
        OSCCommand(.playerMedia) { c, r throws(Reason) in try c.listMedia(r) },
    ]

    /// `/rack/player/load PATH`: plays the file from its start.
    func playerLoad(_ r: Request) throws(Reason) {
        let path = r.arguments[0].string ?? ""   // the signature took one string
        guard r.from.isLocal else {
            // A remote sender: only files under --media-dir, opened by their real path, and one
            // answer for every refusal or failure.
            guard let real = replies.policy.mediaFile(path) else { throw Reason(ExposurePolicy.refusedLoad) }
            return loadPlayer(path: real, startSeconds: 0, from: r.from, address: r.address)
        }
        loadPlayer(path: path, startSeconds: 0, from: r.from, address: r.address)
    }

    /// `/rack/player/play`, `/rack/player/stop`: at the message's time.
    func playerTransport(_ r: Request, playing: Bool) throws(Reason) {
        player.playing = playing
        try link.post(EngineEvent(link.sample(for: r.timeTag), playing ? .play : .stop))
    }

    /// `/rack/player/loop 0|1`.
    func playerLoop(_ r: Request) throws(Reason) {
        guard let v = r.arguments[0].number, v == 0 || v == 1 else { throw Reason("expects 0 or 1") }
        player.loop = v == 1
        session.recorder.recordLoop(v == 1, engine: link.engine)
    }

    /// `/rack/player/seek SECONDS`: reloads the file from there (a time outside the file is
    /// clamped, applied and reported).
    func playerSeek(_ r: Request) throws(Reason) {
        let s = r.arguments[0].number ?? .nan   // the signature took one number
        guard s.isFinite else { throw Reason("seconds must be finite") }
        guard let current = player.stream else { throw Reason("no file is loaded") }
        // A seek goes to the newest file asked for (a load may still be waiting its turn).
        let path = player.newestPath ?? current.path
        let duration = path == current.path ? current.durationSeconds : .infinity
        if s < 0 || s > duration {
            replies.report(r, "seek \(formatNumber(s)) s clamped to \(formatNumber(min(max(s, 0), duration))) s")
        }
        loadPlayer(path: path, startSeconds: min(max(s, 0), duration), from: r.from, address: r.address)
    }

    /// `/rack/player/state`: the file, the transport and the loop flag.
    func playerState(_ r: Request) { replies.reply(playerStateMessage, to: r.from) }

    /// `/rack/player/state s:file i:playing i:loop`: the file asked for last (empty when none),
    /// whether the transport plays and whether it loops (the reply, and what the web page is
    /// pushed when it changes).
    public var playerStateMessage: OSCMessage {
        OSCMessage(OSCCommandDeclaration.playerState.address, [.string(player.newestPath ?? ""), .int(player.playing ? 1 : 0), .int(player.loop ? 1 : 0)])
    }

    /// `/rack/player/media`: the files any sender may load, in one message (the listing kept
    /// while the directories do not change; within the cap on listings).
    func listMedia(_ r: Request) throws(Reason) {
        guard link.datagram.mediaListings.take(now: replies.now) else { throw .mediaListings }
        replies.reply(OSCMessage(OSCCommandDeclaration.playerMedia.address, media.files(of: replies.policy).map { .string($0) }), to: r.from)
    }

    /// Opens `path` (the previous file keeps playing if this fails) and hands its ring to the
    /// engine, which crossfades to it. Failures go to `from` as `/rack/error address …`, or to
    /// the log when `from` is nil.
    public func loadPlayer(path: String, startSeconds: Double, from: OSCEndpoint?, address: String) {
        run(PlayerLoad(path: path, startSeconds: startSeconds, from: from, address: address))
    }

    /// Runs (or defers) `load` and reports its failure.
    func run(_ load: PlayerLoad) {
        guard let engine = link.engine else { return }
        link.awaitEchoes()
        switch player.load(load, into: engine) {
        case .loaded, .deferred:
            break
        case .busy:
            if let from = load.from { replies.replyError(to: from, address: load.address, reason: Reason.busy.text) }
        case let .failed(error):
            var reason = error.description
            if let from = load.from, !from.isLocal { reason = ExposurePolicy.refusedLoad }
            if let from = load.from { replies.replyError(to: from, address: load.address, reason: reason) } else { replies.log(reason) }
        }
    }

    /// A file that failed while it played (truncated, corrupt) is reported once: a line in the
    /// log, `/rack/error /rack/player REASON` to subscribers (and the page), and REASON in
    /// `/rack/status` until another file or position is loaded. The transport stops there (as
    /// `/rack/player/stop` does), so the status says what is heard: nothing.
    func reportPlayerFailure() {
        guard let error = player.stream?.takeUnreportedError() else { return }
        let reason = "stopped: " + error.description
        replies.log(reason)
        feedback.notify(OSCMessage("/rack/error", [.string("/rack/player"), .string(reason)]))
        player.failure = reason
        player.playing = false
        _ = try? link.post(EngineEvent(.now, .stop))
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
    public var playerSeconds: Double { player.seconds(in: link.engine) }

    /// The file playing, if any.
    public var playerPath: String? { player.stream?.path }
}
