import CJack
import Foundation

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

    /// How long (ms) a dead client's close waits for the threads that said the server went away.
    static let noticeThreadsTimeoutMs: Int32 = 2_000

    /// Closes a client whose server went away, on a thread of its own. jackd2's library goes on
    /// using its notification thread after the shutdown notice (it drops the server's other
    /// clients under a lock of its own), and `jack_client_close` cancels that thread at once,
    /// wherever it is: cancelled under the lock, it left it held, and the close (and every
    /// rejoin after it) waited on it for ever. So the close waits until those threads have
    /// ended, which they do as soon as the server's sockets close.
    static func closeDead(_ dead: DeadClient) {
        defer { dead.closing.end() }
        let started = Date()
        if dead.awaitsNoticeThreads, rack_jack_await_shutdown_threads(dead.context, noticeThreadsTimeoutMs) == 0 {
            dead.log("JACK's library still runs the thread that said the server went away after \(noticeThreadsTimeoutMs / 1000) s; closing the client anyway")
        }
        jack_client_close(dead.client)
        rack_jack_destroy(dead.context)   // after the close: no callback can touch it now
        // JACK's library opens and closes clients under one lock: a rejoin waits for this
        // close, and so does the control thread that tries it. Say when it was long.
        let seconds = Date().timeIntervalSince(started)
        if seconds >= slowCloseSeconds {
            dead.log("closing the client of the JACK server that went away took \(String(format: "%.1f", seconds)) s; a rejoin waits for it")
        }
    }
}
