import Foundation
import RackIO

/// A new, empty directory for one test's files under the system's temporary directory, named
/// `prefix-UUID`. The test removes it when it is done with it.
public func makeTemporaryDirectory(_ prefix: String) throws -> String {
    let dir = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// One channel of a test tone: a sine of `hz` at peak `amplitude` (linear).
public struct ToneChannel: Sendable {
    public var hz: Double
    public var amplitude: Double

    public init(hz: Double, amplitude: Double) {
        self.hz = hz
        self.amplitude = amplitude
    }
}

/// Writes a stereo sine tone of `seconds` at `rate` Hz to `path` in `format`: by default
/// 220 Hz at 0.4 on the left and 330 Hz at 0.3 on the right (a fifth apart, so the channels
/// are told apart). `durable: false` skips the fsyncs of the commit.
public func writeTone(_ path: String, seconds: Double, rate: Double = 48_000, format: SampleFormat = .pcm16,
                      left: ToneChannel = ToneChannel(hz: 220, amplitude: 0.4),
                      right: ToneChannel = ToneChannel(hz: 330, amplitude: 0.3), durable: Bool = true) throws {
    let n = Int(seconds * rate)
    func channel(_ c: ToneChannel) -> [Float] { (0..<n).map { Float(c.amplitude * sin(2 * .pi * c.hz * Double($0) / rate)) } }
    let l = channel(left), r = channel(right)
    let w = try AudioFileWriter(path: path, sampleRate: rate, format: format)
    try l.withUnsafeBufferPointer { lp in try r.withUnsafeBufferPointer { rp in
        try w.write(left: lp.baseAddress!, right: rp.baseAddress!, frames: n)
    }}
    try w.commit(durable: durable)
}

/// An RF64 (16-bit stereo, 48 kHz) holding `frames` frames of silence whose ds64 chunk claims
/// `dataBytes` bytes of audio (the data chunk's own size says "see ds64").
public func writeRF64(_ path: String, frames: Int, dataBytes: UInt64) throws {
    var b: [UInt8] = []
    func u32(_ v: UInt32) { b += withUnsafeBytes(of: v.littleEndian, Array.init) }
    func u64(_ v: UInt64) { b += withUnsafeBytes(of: v.littleEndian, Array.init) }
    func tag(_ s: String) { b += Array(s.utf8) }
    tag("RF64"); u32(0xFFFF_FFFF); tag("WAVE")
    tag("ds64"); u32(28); u64(dataBytes &+ 36); u64(dataBytes); u64(dataBytes / 4); u32(0)
    tag("fmt "); u32(16); b += [1, 0, 2, 0]; u32(48_000); u32(48_000 * 4); b += [4, 0, 16, 0]
    tag("data"); u32(0xFFFF_FFFF)
    b += [UInt8](repeating: 0, count: frames * 4)
    try Data(b).write(to: URL(fileURLWithPath: path))
}
