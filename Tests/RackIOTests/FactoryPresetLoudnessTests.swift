import Foundation
import XCTest
import RackEngine
import RackFiles
import RackIO
import RackTestSupport

/// Factory presets are equally loud: each renders the demo loop within ±1.5 LU of the factory
/// presets' median integrated loudness (BS.1770-4 / EBU R128, `IntegratedLoudness`), so
/// stepping through them compares sounds, not levels. The render is `rack render --preset NAME
/// demo-loop.wav out.wav`'s: the factory preset's state, the offline renderer, no tail.
final class FactoryPresetLoudnessTests: XCTestCase {
    /// How far a factory preset may be from the presets' median loudness, LU.
    static let toleranceLU = 1.5
    private let rate = 48_000.0

    func testEveryFactoryPresetIsWithinOnePointFiveLUOfTheMedian() throws {
        let directory = try makeTemporaryDirectory("rack-loudness")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = try DemoLoop.write(to: directory + "/demo-loop.wav", sampleRate: rate)
        let store = PresetStore(factoryDirectory: Self.factoryPresetDirectory, userDirectory: nil)
        XCTAssertGreaterThanOrEqual(store.factory.count, 6, "factory presets in \(Self.factoryPresetDirectory)")

        var loudness: [(preset: Preset, lufs: Double)] = []
        for preset in store.factory {
            let output = directory + "/\(preset.name).wav"
            var request = RenderRequest(inputPath: loop, outputPath: output)
            request.initialState = preset.state
            request.format = .float
            _ = try OfflineRenderer.render(request, presets: store)
            let (left, right) = try Self.readAll(output)
            loudness.append((preset, IntegratedLoudness.lufs([left, right], sampleRate: rate)))
        }
        let median = Self.median(loudness.map(\.lufs))
        // The table a re-tune starts from: each preset's loudness and the gain that would put it
        // on the median (its gain minus its distance from the median).
        print(String(format: "factory preset loudness on the demo loop, median %.2f LUFS:", median))
        for (preset, lufs) in loudness {
            let gain = preset.state[.gain]
            let name = preset.name.padding(toLength: max(14, preset.name.count), withPad: " ", startingAt: 0)
            print("  " + name + String(format: " %7.2f LUFS  %+6.2f LU  gain %+5.1f dB, centred at %+5.1f dB",
                                                         lufs, lufs - median, gain, gain - (lufs - median)))
        }
        for (preset, lufs) in loudness {
            XCTAssertLessThanOrEqual(abs(lufs - median), Self.toleranceLU,
                                     String(format: "%@: %.2f LUFS, %+.2f LU from the median %.2f", preset.name, lufs, lufs - median, median))
        }
    }

    /// The repository's `Presets/` folder (the factory presets `rack` finds from a build tree).
    static let factoryPresetDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Presets").path

    /// The middle value; the mean of the two middle ones for an even count.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    private static func readAll(_ path: String) throws -> (left: [Float], right: [Float]) {
        let reader = try AudioFileReader(path: path)
        defer { reader.close() }
        let frames = Int(reader.info.frames)
        var left = [Float](repeating: 0, count: frames), right = [Float](repeating: 0, count: frames)
        let read = try reader.read(left: &left, right: &right, frames: frames)
        XCTAssertEqual(read, frames)
        return (left, right)
    }
}
