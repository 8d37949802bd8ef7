/// The session manager's commands (NSM): obeyed only from its server.
extension RackController {
    /// The session manager's commands: a save, and what is acknowledged without an answer (a
    /// second open, a switch, is not a declared capability).
    static let sessionCommands = [
        OSCCommand(.sessionSave) { c, r in c.sessionSave(r) },
        OSCCommand(.sessionOpen) { _, _ in },
        OSCCommand(.sessionIsLoaded) { _, _ in },
        OSCCommand(.sessionReply) { _, _ in },
        OSCCommand(.sessionError) { _, _ in },
    ]

    /// `/nsm/client/save`: the targets and the player's file and position, in the session.
    /// Within the cap on saves: one beyond it is refused, to the server, as busy.
    func sessionSave(_ r: Request) {
        guard link.datagram.sessionSaves.take(now: replies.now) else {
            session.nsm?.refuseSave(Reason.sessionSaves.text, socket: replies.replier)
            return
        }
        session.nsm?.save(SessionState(state: targets, playerPath: playerPath, playerSeconds: playerSeconds), socket: replies.replier)
    }
}
