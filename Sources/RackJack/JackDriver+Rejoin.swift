import CJack

/// What the rejoin says while it waits: a refused join (once per reason), a long outage, a
/// dead client's close that keeps the next join waiting.
extension JackDriver {
    /// Says once per wait when the rejoin has waited `slowCloseSeconds` for a dead client's close.
    func noteCloseWait(now: Double) {
        guard let since = closeWaitSince else {
            closeWaitSince = now
            closeWaitSaid = false
            return
        }
        if !closeWaitSaid && now - since >= Self.slowCloseSeconds {
            closeWaitSaid = true
            log("the rejoin waits for JACK's library to close the client of the server that went away")
        }
    }

    /// Why a join that reached the server failed.
    enum JoinRefusal: Equatable {
        /// The server refused the client (the JACK status of `jack_client_open`).
        case status(UInt32)
        /// It opened the client but refused to register its ports.
        case ports
        /// It refused to activate the client.
        case activation

        var sentence: String {
            switch self {
            case .status(let status): return "the JACK server refused rack's client (JACK status 0x\(String(status, radix: 16)))"
            case .ports: return "the JACK server opened rack's client but refused its ports"
            case .activation: return "the JACK server opened rack's client but refused to activate it"
            }
        }
    }

    /// Says a refused join once per reason, except "no server" (the usual answer while the
    /// server is away): a server that answers but refuses rack is not a quiet wait.
    func noteRefusal(_ refusal: JoinRefusal) {
        let noServer = JackFailure.rawValue | JackServerFailed.rawValue
        if case .status(let status) = refusal, status & ~noServer == 0 { return }
        guard refusal != lastRefusal else { return }
        lastRefusal = refusal
        log(refusal.sentence + "; trying again")
    }

    /// Says once per outage when rack has looked for the server for `longOutageSeconds`: the
    /// user (or a log) learns that rack is still looking, and a server that is up by then but
    /// answers as absent is told apart from a rejoin that never ran.
    func noteLongOutage(now: Double) {
        guard let since = outageSince, !outageSaid, now - since >= Self.longOutageSeconds else { return }
        outageSaid = true
        log("no JACK server to rejoin for \(Int(Self.longOutageSeconds)) s; still looking every \(Self.rejoinInterval) s")
    }

    /// An outage this long (s) is said once (`noteLongOutage`).
    static let longOutageSeconds = 5.0

    /// A dead client's close at least this long (s) is reported: the next join waits for it.
    static let slowCloseSeconds = 1.0
}
