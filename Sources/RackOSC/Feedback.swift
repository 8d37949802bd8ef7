import Foundation
import RackEngine

/// What the rack tells the controllers that asked: every applied change, once, to the
/// subscribers of `/rack/subscribe` (the echo of what the render thread applied, so a
/// scheduled change is told when it takes effect), and the output meters to the subscribers
/// of `/rack/meter`.
final class Feedback {
    private let replier: Replier
    /// Receivers of applied changes, in the order they subscribed.
    private(set) var subscribers: [OSCEndpoint] = []
    /// Receivers of `/rack/meter`, in the order they subscribed.
    private(set) var meterSubscribers: [OSCEndpoint] = []
    /// The engine's running sums as of the last meter message (RMS is over the difference).
    private var lastMeterSums = (left: 0.0, right: 0.0, frames: 0)

    init(replier: Replier) { self.replier = replier }

    /// `/rack/subscribe`: `target` gets applied changes (once, however often it subscribes).
    func subscribe(_ target: OSCEndpoint) throws(Reason) {
        subscribers.removeAll { $0 == target }
        guard subscribers.count < ControllerTuning.maximumSubscribers else { throw Reason("too many subscribers") }
        subscribers.append(target)
    }

    /// `/rack/unsubscribe`: `target` gets neither changes nor meters any more.
    func unsubscribe(_ target: OSCEndpoint) {
        subscribers.removeAll { $0 == target }
        meterSubscribers.removeAll { $0 == target }
    }

    /// `/rack/meter`: `target` gets the meters.
    func subscribeMeters(_ target: OSCEndpoint) throws(Reason) {
        guard !meterSubscribers.contains(target) else { return }
        guard meterSubscribers.count < ControllerTuning.maximumSubscribers else { throw Reason("too many meter subscribers") }
        meterSubscribers.append(target)
    }

    /// Sends `m` to every subscriber.
    func notify(_ m: OSCMessage) {
        guard !subscribers.isEmpty else { return }
        let bytes = m.encoded()
        for s in subscribers { replier.send(bytes, to: s) }
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
        guard !meterSubscribers.isEmpty else { return }
        func db(_ x: Double) -> Float { x > 1e-6 ? Float(20 * log10(x)) : -120 }
        let msg = OSCMessage("/rack/meter", [
            .float(db(Double(m.peakLeft))), .float(db(Double(m.peakRight))), .float(db(rmsL)), .float(db(rmsR)),
            .float(Float(host.dspLoadPercent)), .int(Int32(clamping: host.xruns)),
            .int(Int32(engine.monitor.get(.ramping))),
        ]).encoded()
        for s in meterSubscribers { replier.send(msg, to: s) }
    }

    /// A new engine starts its sums from zero.
    func resetMeters() { lastMeterSums = (0, 0, 0) }
}
