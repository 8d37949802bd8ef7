import RackEngine
import RackFiles

/// What `rack render` is asked to do.
public struct RenderRequest: Sendable {
    /// The file read (for `-`, the copy `StandardInput` made of standard input).
    public var inputPath: String
    /// The input's name in messages: `inputPath`, or `-` for standard input.
    public var inputName: String
    /// The file written, or `-` for standard output (`StandardOutputWriter`).
    public var outputPath: String
    /// The container written to standard output (`--type`); a named file's is its extension's.
    public var outputType: AudioContainer?
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
        self.inputName = inputPath
        self.outputPath = outputPath
    }

    /// Whether the output is standard output (`-`).
    public var writesStandardOutput: Bool { outputPath == StandardOutputWriter.name }

    /// The output's container: `--type` for standard output, else the file's extension's.
    public var outputContainer: AudioContainer? { writesStandardOutput ? outputType : AudioContainer(path: outputPath) }

    /// Where the render writes `frames` frames: standard output (streaming) or the named file
    /// (atomic: a temp file renamed at the end, removed if a signal stops the render).
    func makeSink(sampleRate: Double, format: SampleFormat, frames: Int64) throws -> any AudioSink {
        guard writesStandardOutput else {
            let file = try AudioFileWriter(path: outputPath, sampleRate: sampleRate, format: format)
            file.removeOnStopSignals()
            return file
        }
        guard let type = outputType else {
            throw RackError(.usage, "writing to '-' (standard output) needs --type \(AudioContainer.names())")
        }
        return try StandardOutputWriter(container: type, sampleRate: sampleRate, format: format, frames: frames)
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
