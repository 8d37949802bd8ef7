// The sample encodings rack reads and writes, and their libsndfile format words.

import CSndfile

/// The sample encoding of a PCM or float file.
public enum SampleFormat: String, Sendable, CaseIterable {
    /// 16-bit signed integer PCM.
    case pcm16 = "16"
    /// 24-bit signed integer PCM.
    case pcm24 = "24"
    /// 32-bit IEEE float.
    case float = "float"
}

extension SampleFormat {
    /// The sample format of a libsndfile format word, `nil` unless 16-bit, 24-bit or 32-bit float.
    init?(sndfileFormat format: Int32) {
        switch Int(format) & Int(SF_FORMAT_SUBMASK) {
        case Int(SF_FORMAT_PCM_16): self = .pcm16
        case Int(SF_FORMAT_PCM_24): self = .pcm24
        case Int(SF_FORMAT_FLOAT): self = .float
        default: return nil
        }
    }
}
