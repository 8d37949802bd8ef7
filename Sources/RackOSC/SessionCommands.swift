/// The session manager's commands (NSM): obeyed only from its server.
extension RackController {
    /// `/nsm/client/save`: the targets and the player's file and position, in the session.
    /// Within the cap on saves: one beyond it is refused, to the server, as busy.
    func sessionSave(_ r: Request) {
        guard sessionSaves.take(now: clock()) else {
            nsm?.refuseSave(Reason.sessionSaves.text, socket: replier)
            return
        }
        nsm?.save(SessionState(state: targets, playerPath: playerPath, playerSeconds: playerSeconds), socket: replier)
    }
}
