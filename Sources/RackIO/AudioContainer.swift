// The container formats rack names by file extension, and their libsndfile format words.

import CSndfile

/// The container formats rack writes (and names by file extension). Reading accepts anything
/// libsndfile understands; files in other containers simply report `container == nil`.
public enum AudioContainer: Sendable, CaseIterable {
    /// RIFF WAVE (`.wav`, `.wave`).
    case wav
    /// FLAC (`.flac`).
    case flac
    /// Ogg Vorbis (`.ogg`, `.oga`).
    case ogg
    /// MPEG-1/2 Layer III (`.mp3`), encoded by LAME through libsndfile.
    case mp3

    /// The container named by the extension of `path` (case-insensitive): `.wav`/`.wave`,
    /// `.flac`, `.ogg`/`.oga`. `nil` for any other extension or none.
    public init?(path: String) {
        guard let ext = AudioContainer.fileExtension(of: path) else { return nil }
        switch ext.lowercased() {
        case "wav", "wave": self = .wav
        case "flac": self = .flac
        case "ogg", "oga": self = .ogg
        case "mp3": self = .mp3
        default: return nil
        }
    }

    /// The usual file extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .wav: return "wav"
        case .flac: return "flac"
        case .ogg: return "ogg"
        case .mp3: return "mp3"
        }
    }

    /// The containers for a person, in the order of `allCases`: "wav, flac, ogg or mp3";
    /// `dotted` gives ".wav, .flac, .ogg or .mp3".
    public static func names(dotted: Bool = false) -> String {
        let names = allCases.map { (dotted ? "." : "") + $0.fileExtension }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    /// The extension of the last path component (text after its last dot), or `nil` when it has
    /// none. A leading dot (hidden file such as `.wav`) does not start an extension.
    static func fileExtension(of path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
    }

    /// The container of an open libsndfile format word (`SF_INFO.format`), `nil` for others.
    init?(sndfileFormat format: Int32) {
        switch Int(format) & Int(SF_FORMAT_TYPEMASK) {
        case Int(SF_FORMAT_WAV), Int(SF_FORMAT_WAVEX), Int(SF_FORMAT_RF64): self = .wav
        case Int(SF_FORMAT_FLAC): self = .flac
        case Int(SF_FORMAT_OGG): self = .ogg
        case Int(SF_FORMAT_MPEG): self = .mp3
        default: return nil
        }
    }
}
