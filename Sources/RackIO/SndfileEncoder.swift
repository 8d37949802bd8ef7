// The encoding half of writing a stereo file with libsndfile, shared by the file writer (temp
// file + rename) and the standard-output writer (a pipe or a redirected stdout).

import CSndfile
import Glibc
import RackEngine

/// An open libsndfile handle writing stereo `Float` frames in one container and sample format:
/// the format word, the rate check, clipping (or Vorbis quality), the 4 GiB WAV limit, and the
/// interleave-and-write loop. Owns the handle (never the descriptor); not thread-safe.
struct SndfileEncoder {
    /// The container written.
    let container: AudioContainer
    /// The sample format written (`nil` for Ogg Vorbis, which has none).
    let sampleFormat: SampleFormat?
    /// Sample rate in Hz, a whole number.
    let sampleRate: Double
    /// Frames written so far.
    private(set) var framesWritten: Int64 = 0
    private(set) var handle: OpaquePointer?
    private var scratch: [Float] = []
    private static let chunkFrames = 4096
    /// WAV keeps sizes in 32-bit fields: the most frames that fit (with room for the header).
    private let frameLimit: Int64?

    /// Opens libsndfile on `fd` (which it does not close) for `container` at `sampleRate`;
    /// `raw` writes only the samples, little-endian, for a header written by rack itself.
    /// Errors are `.cannotCreate` naming `path`.
    init(fd: Int32, container: AudioContainer, format: SampleFormat, sampleRate: Double, raw: Bool = false,
         vorbisQuality: Double = 0.7, path: String) throws(AudioFileError) {
        let encoding = try Self.encoding(of: container, format: format, path: path)
        var sfinfo = try Self.fileInfo(encoding: encoding.sfFormat, container: container, sampleRate: sampleRate, path: path)
        if raw {
            sfinfo.format = Int32(Int(SF_FORMAT_RAW) | Int(SF_ENDIAN_LITTLE) | (Int(sfinfo.format) & Int(SF_FORMAT_SUBMASK)))
        }
        guard let h = sf_open_fd(fd, Int32(SFM_WRITE), &sfinfo, 0) else {
            throw .cannotCreate(path: path, reason: Sys.sndfileMessage(nil))
        }
        Self.configure(h, container: container, vorbisQuality: vorbisQuality)
        self.container = container
        self.sampleFormat = encoding.sampleFormat
        self.sampleRate = sampleRate.rounded()
        self.handle = h
        frameLimit = Self.frameLimit(container: container, format: format)
    }

    /// Throws what `init` would for `container`, `format` and `sampleRate` (`.cannotCreate`
    /// naming `path`), before anything is created.
    static func check(container: AudioContainer, format: SampleFormat, sampleRate: Double,
                      path: String) throws(AudioFileError) {
        let encoding = try encoding(of: container, format: format, path: path)
        _ = try fileInfo(encoding: encoding.sfFormat, container: container, sampleRate: sampleRate, path: path)
    }

    /// The libsndfile format word for `container` and `format`, and the sample format written.
    private static func encoding(of container: AudioContainer, format: SampleFormat,
                         path: String) throws(AudioFileError) -> (sfFormat: Int, sampleFormat: SampleFormat?) {
        switch container {
        case .wav:
            let base = Int(SF_FORMAT_WAV)
            switch format {
            case .pcm16: return (base | Int(SF_FORMAT_PCM_16), format)
            case .pcm24: return (base | Int(SF_FORMAT_PCM_24), format)
            case .float: return (base | Int(SF_FORMAT_FLOAT), format)
            }
        case .flac:
            let base = Int(SF_FORMAT_FLAC)
            switch format {
            case .pcm16: return (base | Int(SF_FORMAT_PCM_16), format)
            case .pcm24: return (base | Int(SF_FORMAT_PCM_24), format)
            case .float:
                throw .cannotCreate(path: path, reason: "FLAC cannot store float samples; use 16 or 24 bits")
            }
        case .ogg:
            return (Int(SF_FORMAT_OGG) | Int(SF_FORMAT_VORBIS), nil)
        case .mp3:
            return (Int(SF_FORMAT_MPEG) | Int(SF_FORMAT_MPEG_LAYER_III), nil)
        }
    }

    /// The stereo `SF_INFO` at `sampleRate` (rounded), checked by libsndfile.
    private static func fileInfo(encoding: Int, container: AudioContainer, sampleRate: Double,
                                 path: String) throws(AudioFileError) -> SF_INFO {
        guard sampleRate.isFinite, sampleRate >= 1, sampleRate.rounded() <= Double(Int32.max) else {
            throw .cannotCreate(path: path, reason: "invalid sample rate \(sampleRate) Hz")
        }
        if container == .mp3, !mp3Rates.contains(Int(sampleRate.rounded())) {
            throw .cannotCreate(path: path, reason: "MP3 cannot be written at \(formatNumber(sampleRate.rounded())) Hz "
                                + "(it takes \(mp3Rates.map(String.init).joined(separator: ", ")) Hz; use --rate)")
        }
        var sfinfo = SF_INFO()
        sfinfo.samplerate = Int32(sampleRate.rounded())
        sfinfo.channels = 2
        sfinfo.format = Int32(encoding)
        guard sf_format_check(&sfinfo) == SF_TRUE else {
            throw .cannotCreate(path: path, reason: "\(container) cannot be written at \(sfinfo.samplerate) Hz")
        }
        return sfinfo
    }

    /// The rates MPEG-1/2 Layer III has (ISO/IEC 11172-3 and 13818-3, and MPEG 2.5's), Hz.
    static let mp3Rates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]

    /// Vorbis quality for Ogg; variable bitrate at the same quality for MP3 (libsndfile's
    /// compression level is its inverse); clipping of out-of-range floats (instead of
    /// wrap-around) otherwise.
    private static func configure(_ handle: OpaquePointer, container: AudioContainer, vorbisQuality: Double) {
        var q = min(max(vorbisQuality.isFinite ? vorbisQuality : 0.7, 0), 1)
        switch container {
        case .ogg:
            _ = sf_command(handle, Int32(SFC_SET_VBR_ENCODING_QUALITY), &q, Int32(MemoryLayout<Double>.size))
        case .mp3:
            var mode = Int32(SF_BITRATE_MODE_VARIABLE)
            _ = sf_command(handle, Int32(SFC_SET_BITRATE_MODE), &mode, Int32(MemoryLayout<Int32>.size))
            var level = 1 - q
            _ = sf_command(handle, Int32(SFC_SET_COMPRESSION_LEVEL), &level, Int32(MemoryLayout<Double>.size))
        case .wav, .flac:
            _ = sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        }
    }

    /// WAV keeps sizes in 32-bit fields: the most frames that fit (with room for the header).
    static func frameLimit(container: AudioContainer, format: SampleFormat) -> Int64? {
        guard container == .wav else { return nil }
        let bytesPerFrame: Int64 = format == .pcm16 ? 4 : format == .pcm24 ? 6 : 8
        return (Int64(UInt32.max) - 4096) / bytesPerFrame
    }

    /// Why `frames` more frames cannot be written (a WAV file's 4 GiB limit), else `nil`.
    func refusal(adding frames: Int) -> String? {
        guard let limit = frameLimit, framesWritten + Int64(frames) > limit else { return nil }
        return "a WAV file cannot exceed 4 GiB (\(limit) frames in this format); use .flac for longer recordings"
    }

    /// Appends `frames` stereo frames. Throws `.io` naming `path` when the data cannot be
    /// written (the handle stays open: the caller aborts). The caller checks `refusal` first.
    mutating func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int,
                        path: String) throws(AudioFileError) {
        guard let h = handle else { throw .io(path: path, reason: "the file is already closed") }
        guard frames > 0 else { return }
        if scratch.count < Self.chunkFrames * 2 { scratch = [Float](repeating: 0, count: Self.chunkFrames * 2) }
        var done = 0
        while done < frames {
            let n = min(frames - done, Self.chunkFrames)
            let written = scratch.withUnsafeMutableBufferPointer { buf -> Int in
                let p = buf.baseAddress!
                Interleaving.merge(left: left + done, right: right + done, frames: n, into: p)
                return Int(sf_writef_float(h, p, sf_count_t(n)))
            }
            if written != n { throw .io(path: path, reason: "write failed: \(Sys.sndfileMessage(h))") }
            done += n
            framesWritten += Int64(n)
        }
    }

    /// Closes the handle (libsndfile finishes its header); a failure's reason, else `nil`.
    mutating func close() -> String? {
        guard let h = handle else { return nil }
        handle = nil
        let rc = sf_close(h)
        return rc == 0 ? nil : "cannot finish the file: " + Sys.tidy(String(cString: sf_error_number(rc)))
    }
}
