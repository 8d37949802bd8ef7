import XCTest
import RackTestSupport
import Foundation
@testable import RackIO

/// A float WAV carries what a non-PCM WAVE file carries: an 18-byte `fmt ` chunk (format 3,
/// `cbSize` 0) and a `fact` chunk with the frame count; libsndfile writes a 16-byte `fmt `,
/// which sox warns about ("wave header missing extended part of fmt chunk").
final class FloatWAVHeaderTests: XCTestCase {
    private func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
    private func u32(_ b: [UInt8], _ at: Int) -> Int { u16(b, at) | u16(b, at + 2) << 16 }
    private func tag(_ b: [UInt8], _ at: Int) -> String { String(decoding: b[at..<at + 4], as: UTF8.self) }

    /// The chunks of a RIFF file: (id, offset of its body, size).
    private func chunks(_ b: [UInt8]) -> [(id: String, body: Int, size: Int)] {
        var out: [(String, Int, Int)] = []
        var at = 12
        while at + 8 <= b.count {
            let size = u32(b, at + 4)
            out.append((tag(b, at), at + 8, size))
            if tag(b, at) == "data" { break }
            at += 8 + size + (size & 1)
        }
        return out
    }

    func testAFloatWAVHasTheExtendedFormatChunkAndItsFrameCount() throws {
        let path = try makeTemporaryDirectory("rack-float-wav") + "/f.wav"
        let frames = 1_000
        let left = (0..<frames).map { Float(sin(Double($0) * 0.01)) }, right = left.map { -$0 }
        let writer = try AudioFileWriter(path: path, sampleRate: 44_100, format: .float)
        try writer.write(left: left, right: right, frames: frames)
        try writer.commit()

        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(tag(bytes, 0), "RIFF")
        XCTAssertEqual(u32(bytes, 4), bytes.count - 8, "RIFF size")
        let list = chunks(bytes)
        XCTAssertEqual(list.map(\.id), ["fmt ", "fact", "JUNK", "data"])
        let fmt = list[0]
        XCTAssertEqual(fmt.size, 18)
        XCTAssertEqual(u16(bytes, fmt.body), 3, "WAVE_FORMAT_IEEE_FLOAT")
        XCTAssertEqual(u16(bytes, fmt.body + 2), 2)
        XCTAssertEqual(u32(bytes, fmt.body + 4), 44_100)
        XCTAssertEqual(u32(bytes, fmt.body + 8), 44_100 * 8)
        XCTAssertEqual(u16(bytes, fmt.body + 12), 8)
        XCTAssertEqual(u16(bytes, fmt.body + 14), 32)
        XCTAssertEqual(u16(bytes, fmt.body + 16), 0, "cbSize")
        XCTAssertEqual(u32(bytes, list[1].body), frames, "fact: frames")
        XCTAssertEqual(list[3].size, frames * 8)
        XCTAssertEqual(list[3].body + frames * 8, bytes.count)

        // libsndfile reads it back as written.
        let reader = try AudioFileReader(path: path)
        XCTAssertEqual(reader.info.frames, Int64(frames))
        XCTAssertEqual(reader.info.sampleFormat, .float)
        var l = [Float](repeating: 0, count: frames), r = l
        XCTAssertEqual(try reader.read(left: &l, right: &r, frames: frames), frames)
        XCTAssertEqual(l, left)
        XCTAssertEqual(r, right)
    }

    func testThePipeHeaderOfEachFormatIsTheCanonicalOne() throws {
        // 16-bit: 44 bytes, the PCM header; float: fmt 18 + fact, 58 bytes.
        let pcm = try XCTUnwrap(WAVLayout.header(format: .pcm16, sampleRate: 48_000, frames: 10))
        XCTAssertEqual(pcm.count, 44)
        XCTAssertEqual(chunks(pcm).map(\.id), ["fmt ", "data"])
        XCTAssertEqual(u32(pcm, 40), 40)
        XCTAssertEqual(u32(pcm, 4), 36 + 40)
        let pcm24 = try XCTUnwrap(WAVLayout.header(format: .pcm24, sampleRate: 96_000, frames: 10))
        XCTAssertEqual(u16(pcm24, 32), 6)
        XCTAssertEqual(u16(pcm24, 34), 24)
        let float = try XCTUnwrap(WAVLayout.header(format: .float, sampleRate: 48_000, frames: 10))
        XCTAssertEqual(float.count, 58)
        XCTAssertEqual(chunks(float).map(\.id), ["fmt ", "fact", "data"])
        // A pad must be a whole chunk; sizes beyond 32 bits have no header.
        XCTAssertNil(WAVLayout.header(format: .float, sampleRate: 48_000, frames: 10, dataOffset: 62))
        XCTAssertNotNil(WAVLayout.header(format: .float, sampleRate: 48_000, frames: 10, dataOffset: 66))
        XCTAssertNil(WAVLayout.header(format: .float, sampleRate: 48_000, frames: 1 << 30))
    }
}
