// What a sound file contains, as found when it was opened.

/// What a sound file contains, as found when it was opened.
public struct AudioFileInfo: Sendable, Equatable {
    /// The path the file was opened with.
    public let path: String
    /// Length in frames (one frame = one sample per channel), at `sampleRate`.
    public let frames: Int64
    /// Sample rate in Hz (frames per second).
    public let sampleRate: Double
    /// Channel count stored in the file (1 or 2 for files the reader accepts).
    public let channels: Int
    /// The container, `nil` for formats other than WAV, FLAC and Ogg (AIFF, CAF, …).
    public let container: AudioContainer?
    /// The sample encoding, `nil` unless 16-bit PCM, 24-bit PCM or 32-bit float (e.g. Vorbis → nil).
    public let sampleFormat: SampleFormat?

    /// Length in seconds: `frames / sampleRate`.
    public var durationSeconds: Double { sampleRate > 0 ? Double(frames) / sampleRate : 0 }

    /// Describes a file: `frames` at `sampleRate` Hz, `channels` channels.
    public init(path: String, frames: Int64, sampleRate: Double, channels: Int,
                container: AudioContainer?, sampleFormat: SampleFormat?) {
        self.path = path
        self.frames = frames
        self.sampleRate = sampleRate
        self.channels = channels
        self.container = container
        self.sampleFormat = sampleFormat
    }
}
