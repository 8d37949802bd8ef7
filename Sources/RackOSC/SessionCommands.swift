/// The session manager's commands (NSM): obeyed only from its server.
extension RackController {
    /// `/nsm/client/save`: the targets and the player's file and position, in the session.
    func sessionSave(_ r: Request) {
        nsm?.save(SessionState(state: targets, playerPath: playerPath, playerSeconds: playerSeconds), socket: replier)
    }
}
