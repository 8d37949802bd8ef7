import RackEngine
import RackFiles
import RackWire

/// The player as the controller keeps it: the slot (the file playing and the one swap in
/// flight) and the media listing kept between requests.
final class PlayerSide {
    let slot = PlayerSlot()
    let media = MediaCatalog()
}

/// The session the rack keeps: the session manager, when rack runs under NSM, and `--record`.
final class SessionSide {
    /// The session manager (NSM); nil when rack does not run under one.
    var nsm: NSMClient?
    let recorder: SessionRecorder
    /// The last problem of the final flush of `--record` (lines that could not be written):
    /// `rack run` exits with it rather than 0.
    var recordingFailure: RackError?

    init(recordPath: String?) { recorder = SessionRecorder(path: recordPath) }
}
