import RackDSP

/// The levels a plugin reports to its host after each block it processed: LV2 output control
/// ports, CLAP read-only parameters. Each is the largest sample magnitude over the block, in
/// dBFS (0 dBFS is a sample of magnitude 1), never below `floorDecibels`.
public enum PluginMeter: Int, CaseIterable, Sendable {
    /// The left and right outputs, as the host receives them.
    case peakLeft, peakRight
    /// The reverb's input, both channels: the dry path after the low-pass (faded by bypass),
    /// before the reverb; it does not depend on `mix`.
    case reverbInput

    /// The lowest level reported, in dBFS: silence, and anything quieter, reads as it. −90 dBFS
    /// is below what a 16-bit output can hold (its smallest step is −90.3 dBFS), so a host's
    /// meter at the floor means nothing audible left the block.
    public static var floorDecibels: Float { @_noLocks @inline(__always) get { -90 } }

    /// The top of the meters' range as hosts show it, in dBFS: full scale. A hint: a level
    /// above it (a gain above 0 dB) is reported as it is.
    public static let ceilingDecibels: Float = 0

    /// The meter's LV2 port symbol, and its CLAP parameter's name.
    public var symbol: String {
        switch self {
        case .peakLeft: "peak_l"
        case .peakRight: "peak_r"
        case .reverbInput: "reverb_in"
        }
    }

    /// The meter's name as hosts show it.
    public var name: String {
        switch self {
        case .peakLeft: "Peak L"
        case .peakRight: "Peak R"
        case .reverbInput: "Reverb In"
        }
    }

    /// A one-line description (the LV2 port's `rdfs:comment`).
    public var summary: String {
        switch self {
        case .peakLeft, .peakRight: "largest output sample over the last block, dBFS"
        case .reverbInput: "largest sample into the reverb (after the low-pass) over the last block, dBFS"
        }
    }

    /// A peak (a sample magnitude, ≥ 0) in dBFS, at least `floorDecibels`.
    /// - Realtime: safe
    @_noLocks
    public static func decibels(_ peak: Float) -> Float {
        // 20·log10(p) = 20·log2(p)/log2(10); log2(0) is −∞, which the floor takes.
        let db = Float(20 * RackMath.log2(Double(peak)) / RackMath.log2Of10)
        return db > floorDecibels ? db : floorDecibels
    }
}

/// The meters' linear peaks over the samples rendered since `start` (a plugin block may be
/// rendered in pieces: CLAP splits it at parameter events, the engine at its largest block).
public struct PluginLevels: Sendable {
    /// Largest magnitudes, by `PluginMeter.rawValue`.
    public private(set) var peaks: (Float, Float, Float) = (0, 0, 0)

    public init() {}

    /// A new block: every peak back to 0.
    /// - Realtime: safe
    @_noLocks
    public mutating func start() { peaks = (0, 0, 0) }

    /// Meter `meter` in dBFS (`PluginMeter.decibels`).
    /// - Realtime: safe
    @_noLocks
    public func decibels(_ meter: PluginMeter) -> Float {
        switch meter {
        case .peakLeft: PluginMeter.decibels(peaks.0)
        case .peakRight: PluginMeter.decibels(peaks.1)
        case .reverbInput: PluginMeter.decibels(peaks.2)
        }
    }

    /// Takes `frames` more samples of the outputs and of the reverb's two inputs.
    /// - Realtime: safe
    @_noLocks
    mutating func take(frames: Int, outputLeft: UnsafePointer<Float>, outputRight: UnsafePointer<Float>,
                       reverbLeft: UnsafePointer<Float>, reverbRight: UnsafePointer<Float>) {
        var l = peaks.0, r = peaks.1, v = peaks.2
        for i in 0..<frames {
            l = max(l, abs(outputLeft[i]))
            r = max(r, abs(outputRight[i]))
            v = max(v, max(abs(reverbLeft[i]), abs(reverbRight[i])))
        }
        peaks = (l, r, v)
    }
}
