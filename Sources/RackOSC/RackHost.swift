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
    /// The engine sample that will be rendered `secondsFromNow` from now; nil: as soon as possible.
    func engineSample(secondsFromNow: Double) -> Int64?
    /// DSP time per cycle since the last call.
    func takeCycleStats() -> CycleStats
}
