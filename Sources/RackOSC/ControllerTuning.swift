import Foundation

/// Defaults of the OSC side, shared by `rack run`, `rack send` and the controller.
public enum OSCDefaults {
    /// The UDP port `rack run` listens on and `rack send` sends to unless told otherwise.
    public static let port: UInt16 = 8000
    /// The address `rack run` binds to unless told otherwise: loopback, so that only this
    /// machine can control the rack.
    public static let host = "127.0.0.1"
}

/// Constants of the control thread.
public enum ControllerTuning {
    /// How long the control loop waits for a packet before doing its periodic work.
    public static let pollMilliseconds: Int32 = 5
    /// `/rack/error` replies sent per second at most (a flood of bad packets is not amplified).
    public static let errorRepliesPerSecond = 200
    public static let maximumSubscribers = 64
    /// Places one remote address may hold in the subscriber and meter tables together.
    public static let maximumSubscriptionsPerAddress = 4
    /// `/rack/meter` messages per second.
    public static let meterHz = 15.0
    /// Longest time, in seconds, a `--record` file lags behind the changes applied.
    public static let recordFlushSeconds = 2.0
    /// Applied parameter changes kept for `RackController.lastApplied`.
    public static let lastAppliedCount = 64
}

/// The control thread's clock: seconds since an arbitrary origin, never going back.
func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
