import RackEngine
import RackFiles
import RackWire

/// The player as the controller keeps it: the slot (the file playing and the one swap in
/// flight), the media listing kept between requests, and the recording its loop flag is noted in.
final class PlayerSide {
    let slot = PlayerSlot()
    let media = MediaCatalog()
    let recorder: SessionRecorder

    init(recorder: SessionRecorder) { self.recorder = recorder }

    /// Position in the file (seconds) as `engine` plays it.
    func seconds(in engine: Engine?) -> Double { slot.seconds(in: engine) }

    /// `/rack/player/state s:file i:playing i:loop`: the file asked for last (empty when none),
    /// whether the transport plays and whether it loops (the reply, and what the web page is
    /// pushed when it changes).
    var stateMessage: OSCMessage {
        OSCMessage(OSCCommandDeclaration.playerState.address,
                   [.string(slot.newestPath ?? ""), .int(slot.playing ? 1 : 0), .int(slot.loop ? 1 : 0)])
    }
}

/// The session the rack keeps: the session manager, when rack runs under NSM, and `--record`.
final class SessionSide {
    /// The session manager (NSM); nil when rack does not run under one.
    var nsm: NSMClient?
    let recorder: SessionRecorder
    /// The last problem of the final flush of `--record` (lines that could not be written):
    /// `rack run` exits with it rather than 0.
    var recordingFailure: RackError?
    /// What the session manager's messages go out through (the rack's socket).
    let replier: Replier

    init(recordPath: String?, replier: Replier) {
        recorder = SessionRecorder(path: recordPath)
        self.replier = replier
    }
}
