/// The one rule by which a bounded resource is shared out between senders, so that no sender
/// starves another: `capacity` in all; remote senders (neither 127.0.0.1 nor `--allow`ed)
/// together hold at most `capacity - trustedReserve`, the reserve being this machine's user's
/// and `--allow`ed peers'; and one remote address holds at most `perRemoteAddress`. Subscriber
/// places, error replies and scheduled changes are each shared by it (`ControllerTuning` has
/// their figures).
struct FairShare: Sendable {
    /// Why a claim does not fit.
    enum Refusal: Equatable {
        /// The whole capacity is held.
        case full
        /// Remote senders together hold all they may (the rest is the reserve).
        case remoteShareFull
        /// This remote address holds all it may.
        case addressShareFull
    }

    /// Units in all.
    let capacity: Int
    /// Units remote senders cannot take.
    let trustedReserve: Int
    /// Units one remote address may hold.
    let perRemoteAddress: Int

    /// Units remote senders may hold together.
    var remoteShare: Int { capacity - trustedReserve }

    /// Why a claim of `units` more does not fit, nil when it does. `held`: units held in all;
    /// `heldRemotely`: by remote senders; `heldByAddress`: by the claimant's address; `trusted`:
    /// the claimant is 127.0.0.1 or `--allow`ed (it is bound by the capacity alone).
    func refusal(claiming units: Int, held: Int, heldRemotely: Int, heldByAddress: Int, trusted: Bool) -> Refusal? {
        if held + units > capacity { return .full }
        if trusted { return nil }
        if heldRemotely + units > remoteShare { return .remoteShareFull }
        if heldByAddress + units > perRemoteAddress { return .addressShareFull }
        return nil
    }
}
