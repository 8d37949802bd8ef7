import Foundation
import RackEngine
import RackWire

/// What the rack tells the controllers that asked: every applied change, once, to the
/// subscribers of `/rack/subscribe` (a sink of the change stream, whose records follow the
/// echo of what the render thread applied, so a scheduled change is told when it takes
/// effect), and the output meters to the subscribers of `/rack/meter`.
final class Feedback {
    /// One receiver, when its lease ends (`.infinity` for local ones, which stay) and whether
    /// it is trusted.
    struct Subscription: Equatable {
        let endpoint: OSCEndpoint
        var expires: Double
        /// 127.0.0.1 or `--allow`ed: it may take the places remote ones cannot.
        let trusted: Bool
        /// Subscribed by another endpoint (`/rack/subscribe i PORT` naming a port other than the
        /// sender's), as one links racks: it is not told back a change it sent itself.
        var linked = false
    }

    private let replier: Replier
    /// Receivers of applied changes, in the order they subscribed.
    private(set) var subscriptions: [Subscription] = []
    /// Receivers of `/rack/meter`, in the order they subscribed.
    private(set) var meterSubscriptions: [Subscription] = []
    /// The engine's running sums as of the last meter message (RMS is over the difference).
    private var lastMeterSums = (left: 0.0, right: 0.0, frames: 0)
    /// Sees what subscribers are told that is not a change of state (the player's failure) and
    /// every meter reading, whether or not anyone subscribed (the HTTP side's pushes; changes
    /// reach it from the change stream).
    var observer: ((OSCMessage) -> Void)?

    /// When the meters are taken next (`ControllerTuning.meterHz`, on the controller's clock).
    var meterClock = PushClock(hertz: ControllerTuning.meterHz)
    /// Whether the HTTP side has a listener of `/rack/meter` (the meters are then taken at
    /// their rate, as for a subscriber); set by the owner.
    var meterObserved: () -> Bool = { false }

    /// Whether a push of so many bytes may go to a subscriber now (the reply budget of a remote
    /// one, `ReplyBudget.spendPush`); set by the controller.
    var admits: (OSCEndpoint, Int) -> Bool = { _, _ in true }

    init(replier: Replier) { self.replier = replier }

    var subscribers: [OSCEndpoint] { subscriptions.map(\.endpoint) }
    var meterSubscribers: [OSCEndpoint] { meterSubscriptions.map(\.endpoint) }

    /// `/rack/subscribe`: `target` gets applied changes (once, however often it subscribes),
    /// until `expires` (a renewal moves it on). `trusted`: 127.0.0.1 or `--allow`ed.
    /// `linked`: subscribed by another endpoint (`Subscription.linked`).
    func subscribe(_ target: OSCEndpoint, trusted: Bool, linked: Bool = false, expires: Double) throws(Reason) {
        subscriptions.removeAll { $0.endpoint == target }
        try checkPlaces(subscriptions, for: target, trusted: trusted, full: "too many subscribers")
        subscriptions.append(Subscription(endpoint: target, expires: expires, trusted: trusted, linked: linked))
    }

    /// `/rack/unsubscribe`: `target` gets neither changes nor meters any more.
    func unsubscribe(_ target: OSCEndpoint) {
        subscriptions.removeAll { $0.endpoint == target }
        meterSubscriptions.removeAll { $0.endpoint == target }
    }

    /// `/rack/meter`: `target` gets the meters until `expires` (a renewal moves it on).
    func subscribeMeters(_ target: OSCEndpoint, trusted: Bool, expires: Double) throws(Reason) {
        if let i = meterSubscriptions.firstIndex(where: { $0.endpoint == target }) {
            meterSubscriptions[i].expires = expires
            return
        }
        try checkPlaces(meterSubscriptions, for: target, trusted: trusted, full: "too many meter subscribers")
        meterSubscriptions.append(Subscription(endpoint: target, expires: expires, trusted: trusted))
    }

    /// Whether `table` has a place for `target`, by the rule of `ControllerTuning.subscriberPlaces`:
    /// `maximumSubscribers` in all, of which remote subscribers together hold at most all but
    /// `subscriberTrustedReserve` (kept for 127.0.0.1 and `--allow`ed peers); and a remote address
    /// holds at most `maximumSubscriptionsPerAddress` places in the two tables together, so no
    /// single source can fill them.
    private func checkPlaces(_ table: [Subscription], for target: OSCEndpoint, trusted: Bool, full: String) throws(Reason) {
        let held = (subscriptions + meterSubscriptions).filter { $0.endpoint.address == target.address }.count
        switch ControllerTuning.subscriberPlaces.refusal(claiming: 1, held: table.count, heldRemotely: table.filter { !$0.trusted }.count,
                                                          heldByAddress: held, trusted: trusted) {
        case nil: return
        case .full: throw Reason(full)
        case .remoteShareFull: throw Reason(full + " from remote addresses")
        case .addressShareFull: throw Reason("too many subscriptions from this address")
        }
    }

    /// When the first lease runs out (seconds on the controller's clock); nil while every
    /// subscription is local (they stay) or there is none.
    var firstExpiry: Double? {
        (subscriptions + meterSubscriptions).map(\.expires).filter(\.isFinite).min()
    }

    /// Ends the subscriptions whose lease ran out by `now`.
    func expire(now: Double) {
        subscriptions.removeAll { $0.expires <= now }
        meterSubscriptions.removeAll { $0.expires <= now }
    }

    /// A record of the change stream, as subscribers are told it (`feedbackMessage`), to every
    /// subscriber but a linked one whose own change it is (split horizon: a rack linked to this
    /// one is never told its change back, so changes crossing on the way cannot chase each
    /// other, in whatever order they cross). A controller that subscribed itself still sees its
    /// own changes.
    func tell(_ record: ChangeRecord) {
        if let m = record.feedbackMessage { send(m, except: record.origin) }
    }

    /// Sends `m`, which is not a change of state (the player's failure), to the observer and
    /// every subscriber.
    func notify(_ m: OSCMessage) {
        observer?(m)
        send(m)
    }

    /// Sends `m` to every subscriber but a linked `origin`.
    private func send(_ m: OSCMessage, except origin: OSCEndpoint? = nil) {
        guard !subscriptions.isEmpty else { return }
        let bytes = m.encoded()
        for s in subscriptions where !(s.linked && s.endpoint == origin) && admits(s.endpoint, bytes.count) {
            replier.send(bytes, to: s.endpoint)
        }
    }

    /// Sends `bytes` to each of `subscriptions` its budget admits.
    private func push(_ bytes: [UInt8], to subscriptions: [Subscription]) {
        for s in subscriptions where admits(s.endpoint, bytes.count) { replier.send(bytes, to: s.endpoint) }
    }

    /// `/rack/meter f:peak_l f:peak_r f:rms_l f:rms_r` (dBFS, −120 for silence)
    /// `f:dsp_load_percent i:xruns i:ramping` to every meter subscriber. The meters are taken
    /// from `engine` whether or not anyone listens, so each message covers the time since the
    /// one before.
    func sendMeters(engine: Engine, host: RackHost) {
        let m = engine.monitor.takeMeters()
        let frames = m.frames - lastMeterSums.frames
        let rmsL = frames > 0 ? ((m.sumSquaresLeft - lastMeterSums.left) / Double(frames)).squareRoot() : 0
        let rmsR = frames > 0 ? ((m.sumSquaresRight - lastMeterSums.right) / Double(frames)).squareRoot() : 0
        lastMeterSums = (m.sumSquaresLeft, m.sumSquaresRight, m.frames)
        guard !meterSubscriptions.isEmpty || observer != nil else { return }
        func db(_ x: Double) -> Float { x > 1e-6 ? Float(20 * log10(x)) : -120 }
        let msg = OSCMessage(OSCCommandDeclaration.meter.address, [
            .float(db(Double(m.peakLeft))), .float(db(Double(m.peakRight))), .float(db(rmsL)), .float(db(rmsR)),
            .float(Float(host.dspLoadPercent)), .int(Int32(clamping: host.xruns)),
            .int(Int32(engine.monitor.get(.ramping))),
        ])
        observer?(msg)
        guard !meterSubscriptions.isEmpty else { return }
        push(msg.encoded(), to: meterSubscriptions)
    }

    /// A new engine starts its sums from zero.
    func resetMeters() { lastMeterSums = (0, 0, 0) }
}
