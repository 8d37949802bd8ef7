// The RIFF WAVE header rack writes itself: into a pipe (where libsndfile cannot write WAV, as it
// cannot seek back to finish its header), and over libsndfile's header of a float WAV, whose
// `fmt ` chunk lacks the `cbSize` field that non-PCM formats carry.

import Glibc

/// The canonical stereo WAV header: `RIFF`/`WAVE`, a `fmt ` chunk (16 bytes for PCM; 18 for IEEE
/// float, `cbSize` = 0, as Microsoft's WAVEFORMATEX gives every non-PCM format), a `fact` chunk
/// for float (the frame count, which non-PCM formats carry), an optional `JUNK` chunk that pads
/// the header to a given length, and the `data` chunk's header.
///
/// With it, sox/soxi read rack's float WAVs without "wave header missing extended part of fmt
/// chunk" (libsndfile 1.2 writes a 16-byte `fmt ` for float and a `PEAK` chunk).
enum WAVLayout {
    /// Bytes per stereo frame.
    static func bytesPerFrame(_ format: SampleFormat) -> Int {
        switch format {
        case .pcm16: return 4
        case .pcm24: return 6
        case .float: return 8
        }
    }

    /// The header for `frames` stereo frames at `sampleRate` (Hz), `dataOffset` bytes long when
    /// given (padded by a `JUNK` chunk; `nil` when it cannot be: the pad must be 0 or at least
    /// 8 bytes, and even), else as short as the format allows. `nil` also when the sizes do not
    /// fit the 32-bit fields.
    static func header(format: SampleFormat, sampleRate: Int, frames: Int64, dataOffset: Int? = nil) -> [UInt8]? {
        let float = format == .float
        let blockAlign = bytesPerFrame(format)
        let formatChunk = 8 + (float ? 18 : 16)
        let factChunk = float ? 12 : 0
        let natural = 12 + formatChunk + factChunk + 8
        let pad = (dataOffset ?? natural) - natural
        guard pad == 0 || (pad >= 8 && pad % 2 == 0) else { return nil }
        let dataBytes = frames * Int64(blockAlign)
        let riffSize = Int64(natural + pad - 8) + dataBytes
        guard frames >= 0, riffSize <= Int64(UInt32.max), sampleRate > 0, sampleRate <= Int(Int32.max) / blockAlign else {
            return nil
        }
        var out: [UInt8] = []
        out.reserveCapacity(natural + pad)
        out.append(tag: "RIFF"); out.append(u32: UInt32(riffSize)); out.append(tag: "WAVE")
        out.append(tag: "fmt "); out.append(u32: UInt32(formatChunk - 8))
        out.append(u16: float ? 3 : 1)                     // WAVE_FORMAT_IEEE_FLOAT : WAVE_FORMAT_PCM
        out.append(u16: 2)                                 // channels
        out.append(u32: UInt32(sampleRate))
        out.append(u32: UInt32(sampleRate * blockAlign))   // bytes per second
        out.append(u16: UInt16(blockAlign))
        out.append(u16: UInt16(blockAlign / 2 * 8))        // bits per sample
        if float {
            out.append(u16: 0)                             // cbSize: no extension
            out.append(tag: "fact"); out.append(u32: 4); out.append(u32: UInt32(truncatingIfNeeded: frames))
        }
        if pad > 0 {
            out.append(tag: "JUNK"); out.append(u32: UInt32(pad - 8))
            out.append(contentsOf: repeatElement(0, count: pad - 8))
        }
        out.append(tag: "data"); out.append(u32: UInt32(dataBytes))
        return out
    }

    /// Replaces the header of the finished float WAV on `fd` (as libsndfile wrote it, holding
    /// `frames` frames at `sampleRate`) by `header`'s, the sample data left where it is; `readFD`
    /// reads the file (`fd` when it is open for reading). Returns false, leaving the file as it
    /// was, when the header does not fit before the data.
    static func rewriteFloatHeader(fd: Int32, readFD: Int32? = nil, sampleRate: Int, frames: Int64) -> Bool {
        guard let offset = dataOffset(fd: readFD ?? fd),
              let bytes = header(format: .float, sampleRate: sampleRate, frames: frames, dataOffset: offset) else {
            return false
        }
        return bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == bytes.count
    }

    /// Where the sample data of the RIFF WAVE file on `fd` starts (after the `data` chunk's
    /// header), found by walking its chunks; `nil` if it is not a plain RIFF WAVE file.
    static func dataOffset(fd: Int32) -> Int? {
        var head = [UInt8](repeating: 0, count: 12)
        guard head.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 12, 0) }) == 12,
              head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WAVE".utf8) else { return nil }
        var offset = 12
        for _ in 0..<64 {
            var chunk = [UInt8](repeating: 0, count: 8)
            guard chunk.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 8, off_t(offset)) }) == 8 else { return nil }
            let size = Int(chunk[4]) | Int(chunk[5]) << 8 | Int(chunk[6]) << 16 | Int(chunk[7]) << 24
            if chunk[0..<4].elementsEqual("data".utf8) { return offset + 8 }
            offset += 8 + size + (size & 1)
        }
        return nil
    }
}

private extension Array where Element == UInt8 {
    mutating func append(tag: String) { append(contentsOf: tag.utf8) }
    mutating func append(u16 value: UInt16) { append(UInt8(value & 0xFF)); append(UInt8(value >> 8)) }
    mutating func append(u32 value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }
}
