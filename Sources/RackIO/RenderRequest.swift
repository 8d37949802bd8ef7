import RackEngine
import RackFiles

/// What `rack render` is asked to do.
public struct RenderRequest: Sendable {
    public var inputPath: String
    public var outputPath: String
    /// Starting state (preset and `--set` already applied).
    public var initialState = RackState()
    /// Automation events, already checked.
    public var automation: Automation?
    /// Reverb tail appended after the input ends, in seconds.
    public var tailSeconds: Double = 0
    /// Render rate in Hz; nil: the input file's rate.
    public var sampleRate: Double?
    /// Frames per render call (the result does not depend on it).
    public var blockFrames = 16_384
    /// Output sample format; nil: `SampleFormat.renderDefault` (the input's, 24-bit when the
    /// container cannot store it).
    public var format: SampleFormat?

    public init(inputPath: String, outputPath: String) {
        self.inputPath = inputPath
        self.outputPath = outputPath
    }
}

/// What a render did.
public struct RenderReport: Sendable {
    public let frames: Int64
    public let sampleRate: Double
    public let format: SampleFormat
    public let seconds: Double
    /// Audio seconds rendered per wall-clock second.
    public var realtimeFactor: Double { Double(frames) / sampleRate / max(seconds, 1e-9) }
}
