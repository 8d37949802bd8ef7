import RackDSP
import RackEngine
import RackIO
import RackWire

/// A request to play `path` from `startSeconds`, and who to tell if it fails (nil: the log).
struct PlayerLoad {
    var path: String
    var startSeconds: Double
    /// The sender of the `/rack/player/load` or `/rack/player/seek`; nil when rack asked itself.
    var from: OSCEndpoint?
    /// The address the request came on (the first argument of its `/rack/error`).
    var address: String
}

/// What became of a `PlayerLoad`.
enum PlayerLoadOutcome {
    /// The engine has the new ring and crossfades to it.
    case loaded
    /// A crossfade is still running: the load waits for it (replacing any load that waited).
    case deferred
    /// The render thread's queue is full; the old file keeps playing.
    case busy
    /// The file could not be opened; the old file keeps playing.
    case failed(AudioFileError)
}

/// The player as the control thread sees it: the stream the engine plays, the streams it is
/// crossfading away from (kept until the engine lets go of their rings, then freed here, never
/// on the render thread), and at most one load waiting for that. A load or seek asked for while
/// the previous swap was still crossfading is deferred, only the latest is kept, and it runs
/// once the player has let go of the old ring: so the render thread never sees more than one
/// swap in flight, however fast seeks arrive.
final class PlayerSlot {
    /// The stream the engine plays (or crossfades to).
    private(set) var stream: PlayerStream?
    private var retired: [PlayerStream] = []
    /// The load waiting for the crossfade to end.
    private(set) var deferred: PlayerLoad?
    /// Whether the file loops (`/rack/player/loop`), passed on to every stream.
    var loop = true {
        didSet { stream?.loop = loop }
    }
    /// Whether the transport plays (`/rack/player/play`, `/rack/player/stop`); a new file
    /// starts playing only if it does.
    var playing = true
    /// The position as of the last pass of the control loop (read before a driver swaps engines).
    var lastSeconds = 0.0
    /// Why the file playing now stopped by itself (truncated or corrupt data, `/rack/status`);
    /// empty while it plays, and again once another file or position is loaded.
    var failure = ""
    /// A failure whose stop the render thread has not played out yet (reported once it has).
    var stopping: FailureStop?

    /// Called on a stream's reader thread when a read fails (the control thread's wake, so the
    /// failure is reported at once, not at the loop's next timer).
    var readFailed: @Sendable () -> Void = {}
    /// A swap is in flight: a stream the engine crossfades away from, or a load waiting for
    /// that (the control loop looks for the released ring's echo meanwhile).
    var isSwapping: Bool { !retired.isEmpty || deferred != nil }

    /// The file asked for last: the deferred load's, else the playing one's.
    var newestPath: String? { deferred?.path ?? stream?.path }

    /// Opens the file of `load` (the previous file keeps playing if that fails) and hands its
    /// ring to `engine`, which crossfades to it; or defers it while a crossfade runs.
    func load(_ load: PlayerLoad, into engine: Engine) -> PlayerLoadOutcome {
        if !retired.isEmpty {
            deferred = load
            return .deferred
        }
        let s: PlayerStream
        do {
            s = try PlayerStream(path: load.path, sampleRate: engine.sampleRate, startSeconds: load.startSeconds, loop: loop,
                               failed: readFailed)
        } catch {
            return .failed(error)
        }
        guard engine.post(.attachPlayer(s.ring)) else { return .busy }
        if let old = stream { retired.append(old) }
        stream = s
        failure = ""
        if playing { _ = engine.post(EngineEvent(.now, .play)) }
        return .loaded
    }

    /// Takes over a stream the driver attached to the engine before it started.
    func adopt(_ s: PlayerStream) {
        stream = s
        s.loop = loop
    }

    /// The engine let go of `ring` (`releasedRing`): its stream may be freed.
    func released(_ ring: StereoRing?) {
        for s in retired + [stream].compactMap({ $0 }) where ring == s.ring { s.isAttached = false }
        if let s = stream, !s.isAttached { stream = nil }
    }

    /// Frees the streams whose rings the engine has let go of; returns the deferred load once
    /// nothing is crossfading any more (the caller runs it).
    func collect() -> PlayerLoad? {
        retired.removeAll { !$0.isAttached }
        guard retired.isEmpty, let d = deferred else { return nil }
        deferred = nil
        return d
    }

    /// Forgets every stream (their engine is gone) and the deferred load; returns the file that
    /// played and its last known position, to play again through a new engine.
    func dropAll() -> (path: String, seconds: Double)? {
        let path = stream?.path
        let position = lastSeconds
        stream = nil
        retired.removeAll()
        deferred = nil
        return path.map { ($0, position) }
    }

    /// Position of the player in the file, in seconds, as `engine` has played it: within the
    /// pass being heard; the file's duration while it stands at the end with loop off.
    func seconds(in engine: Engine?) -> Double {
        guard let s = stream, engine != nil else { return 0 }
        return s.positionSeconds
    }

    /// Stops every reader thread (at exit).
    func stopAll() {
        stream?.stop()
        for s in retired { s.stop() }
    }
}

/// The stop a failed file asked for, until the render thread has played it out.
struct FailureStop {
    /// What is reported: "stopped: " and the failure.
    let reason: String
    /// The stream that failed.
    let stream: ObjectIdentifier?
    /// The engine's posted-count with the stop in it; nil when nothing was posted.
    let posted: Int?
    /// The engine's sample clock when the stop was first seen taken.
    var takenBy: Int64?
}
