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

extension AudioContainer {
    /// Whether the container can store `format` samples: FLAC has no float; Ogg Vorbis encodes
    /// any input (its sample format is not a choice).
    public func stores(_ format: SampleFormat) -> Bool {
        !(self == .flac && format == .float)
    }
}

extension SampleFormat {
    /// The format a render writes to `container` when none is asked for: the input's (float when
    /// the input has none of 16/24/float), or 24-bit when the container cannot store that (float
    /// into FLAC), as sox does. `substituted` is the input's format that was replaced, if any.
    public static func renderDefault(input: SampleFormat?,
                                     container: AudioContainer?) -> (format: SampleFormat, substituted: SampleFormat?) {
        let kept = input ?? .float
        guard let container, !container.stores(kept) else { return (kept, nil) }
        return (.pcm24, kept)
    }
}
