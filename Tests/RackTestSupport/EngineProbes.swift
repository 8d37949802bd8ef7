@testable import RackEngine

// What tests read of an engine that production code never asks: kept here, reaching the
// engine's internals through `@testable`, rather than as public API of RackEngine.

extension Engine {
    /// Scheduled events waiting in the engine (owner's thread, while not rendering).
    public var scheduledWaiting: Int { core.pointee.pending.scheduledCount }
}

extension EngineCore {
    /// The value a parameter has at the current sample time (mid-ramp values included).
    public func currentValue(_ id: ParameterID) -> Double {
        guard let r = rampIndices[id.index] else { return Double(room.rawValue) }
        return ramps[r].value(at: sampleTime)
    }
}
