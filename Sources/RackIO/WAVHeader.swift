// A RIFF/RF64 header check: libsndfile silently shortens a WAV whose data chunk is cut short.

import Glibc

/// Just enough RIFF/RF64 parsing to see whether the `data` chunk is cut short.
enum WAVHeader {
    /// A reason string if the WAV on `fd` declares more sample data than the file holds, else
    /// `nil`. Streaming placeholders (size 0 or 0xFFFFFFFF, "length unknown") are accepted
    /// unless `placeholders` is false: after libsndfile refused the file, a ds64 that claims
    /// 2^64−1 bytes is the reason to give (libsndfile says "unspecified internal error").
    static func truncation(fd: Int32, fileSize: Int64, placeholders: Bool = true) -> String? {
        func bytes(_ offset: Int64, _ count: Int) -> [UInt8]? {
            var b = [UInt8](repeating: 0, count: count)
            let n = b.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? b : nil
        }
        guard let head = bytes(0, 12) else { return nil }
        let id = String(decoding: head[0..<4], as: UTF8.self)
        let bigEndian = id == "RIFX"
        guard id == "RIFF" || id == "RIFX" || id == "RF64",
              String(decoding: head[8..<12], as: UTF8.self) == "WAVE" else { return nil }
        func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
            let v = UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
            return bigEndian ? v.byteSwapped : v
        }
        func u64(_ b: [UInt8], _ at: Int) -> UInt64 {
            UInt64(u32(b, at)) | UInt64(u32(b, at + 4)) << 32
        }
        var ds64DataSize: UInt64?
        var offset: Int64 = 12
        var chunks = 0
        while offset + 8 <= fileSize, chunks < 4096 {
            chunks += 1
            guard let ch = bytes(offset, 8) else { return nil }
            let cid = String(decoding: ch[0..<4], as: UTF8.self)
            let size = u32(ch, 4)
            if cid == "ds64", let d = bytes(offset + 8, 24) { ds64DataSize = u64(d, 8) }
            if cid == "data" {
                var declared = UInt64(size)
                if size == 0xFFFF_FFFF, let d = ds64DataSize { declared = d }
                if placeholders && (declared == 0 || declared == 0xFFFF_FFFF || declared == UInt64.max) { return nil }
                let available = UInt64(max(fileSize - (offset + 8), 0))
                if declared > available {
                    return "truncated: the header promises \(declared) bytes of audio but the file holds \(available)"
                }
                return nil
            }
            offset += 8 + Int64(size) + Int64(size & 1)
        }
        return nil
    }
}
