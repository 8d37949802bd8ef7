import XCTest
import RackTestSupport
import Foundation
@testable import RackIO

/// `.mp3` is written (Debian's libsndfile encodes MPEG Layer III through LAME) and read back at
/// its length; a rate MP3 does not have is refused before anything is created.
final class MP3OutputTests: XCTestCase {
    func testAnMP3IsWrittenAndReadBackAtItsLengthAndLevel() throws {
        let path = try makeTemporaryDirectory("rack-mp3") + "/tone.mp3"
        let frames = 44_100
        let left = (0..<frames).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / 44_100)) }
        let writer = try AudioFileWriter(path: path, sampleRate: 44_100, format: .pcm16)
        XCTAssertEqual(writer.container, .mp3)
        try writer.write(left: left, right: left, frames: frames)
        try writer.commit()

        let reader = try AudioFileReader(path: path)
        XCTAssertEqual(reader.info.container, .mp3)
        XCTAssertEqual(reader.info.frames, Int64(frames), "gapless: LAME's header gives the length")
        var l = [Float](repeating: 0, count: frames), r = l
        XCTAssertEqual(try reader.read(left: &l, right: &r, frames: frames), frames)
        func rmsDB(_ x: ArraySlice<Float>) -> Double {
            10 * log10(x.reduce(0) { $0 + Double($1) * Double($1) } / Double(x.count))
        }
        let middle = frames / 4..<3 * frames / 4
        XCTAssertEqual(rmsDB(l[middle]), rmsDB(left[middle]), accuracy: 0.2, "the tone's level")
    }

    func testARateMP3DoesNotHaveIsRefusedNamingTheRatesItHas() throws {
        let directory = try makeTemporaryDirectory("rack-mp3")
        XCTAssertThrowsError(try AudioFileWriter(path: directory + "/hi.mp3", sampleRate: 96_000, format: .pcm16)) { error in
            XCTAssertEqual((error as? AudioFileError)?.description, "cannot create '\(directory)/hi.mp3': MP3 cannot be written "
                           + "at 96000 Hz (it takes 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000 Hz; use --rate)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [], "nothing created")
        XCTAssertThrowsError(try AudioFileWriter(path: directory + "/x.aac", sampleRate: 48_000, format: .pcm16)) { error in
            XCTAssertTrue((error as? AudioFileError)?.description.hasSuffix("use .wav, .flac, .ogg or .mp3") ?? false, "\(error)")
        }
    }
}
