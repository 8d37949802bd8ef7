import RackEngine

/// What the controller needs from the driver it runs beside (the JACK client).
public protocol RackHost: AnyObject {
    /// The engine the driver renders (replaced if the server comes back at another rate).
    var engine: Engine? { get }
    var bufferSize: Int { get }
    var xruns: Int { get }
    var dspLoadPercent: Double { get }
    /// "running" or "disconnected".
    var stateName: String { get }
    /// True while the engine is rendered (joined to a running server). While false, nothing is
    /// posted to the engine: changes update the controller's state, and the engine takes that
    /// state up when the driver rejoins. (`JackDriver.isRunning` is this.)
    var isRunning: Bool { get }
    /// The engine sample that will be rendered `secondsFromNow` from now; nil: as soon as possible.
    func engineSample(secondsFromNow: Double) -> Int64?
    /// DSP time per cycle since the last call.
    func takeCycleStats() -> CycleStats
}
