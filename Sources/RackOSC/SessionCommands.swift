/// The session manager's commands (NSM): obeyed only from its server. Each handler gets the
/// `SessionModule` and the context.
enum SessionCommands {
    /// The session manager's commands: a save, and what is acknowledged without an answer (a
    /// second open, a switch, is not a declared capability).
    static let all = [
        OSCCommand(.sessionSave, in: \.session) { s, c, r in save(s, c, r) },
        OSCCommand(.sessionOpen) { _, _ in },
        OSCCommand(.sessionIsLoaded) { _, _ in },
        OSCCommand(.sessionReply) { _, _ in },
        OSCCommand(.sessionError) { _, _ in },
    ]

    /// `/nsm/client/save`: the targets and the player's file and position, in the session.
    /// Within the cap on saves: one beyond it is refused, to the server, as busy.
    static func save(_ s: SessionModule, _ c: CommandContext, _ r: Request) {
        guard c.datagram.sessionSaves.take(now: c.now) else {
            s.side.nsm?.refuseSave(Reason.sessionSaves.text, socket: s.side.replier)
            return
        }
        let state = SessionState(state: c.targets, playerPath: s.player.slot.stream?.path, playerSeconds: s.player.seconds(in: c.engine))
        s.side.nsm?.save(state, socket: s.side.replier)
    }
}
