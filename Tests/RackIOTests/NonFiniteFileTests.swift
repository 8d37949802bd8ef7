import XCTest
import RackTestSupport
import Foundation
import RackDSP
import RackEngine
import RackFiles
@testable import RackIO

/// Defect: a float WAV with one NaN rendered offline came out mostly NaN. Bad samples in a
/// file (NaN, +Inf, 1e30) are replaced at the head of the engine's pipeline; the render is
/// finite and, after the bad samples, exactly the render of the file with silence there.
final class NonFiniteFileTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = try makeTemporaryDirectory("rack-nonfinite")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// Deterministic noise at −12 dBFS.
    private func noise(_ count: Int, seed: UInt64) -> [Float] {
        var x = seed
        return (0..<count).map { _ in
            x = x &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: x >> 11) % 1_000_000) / 4_000_000
        }
    }

    private func writeFloatWAV(_ name: String, _ left: [Float], _ right: [Float]) throws -> String {
        let path = dir + "/" + name
        let w = try AudioFileWriter(path: path, sampleRate: 48_000, format: .float)
        try w.write(left: left, right: right, frames: left.count)
        try w.commit()
        return path
    }

    private func render(_ input: String, _ output: String) throws -> (left: [Float], right: [Float]) {
        var request = RenderRequest(inputPath: input, outputPath: dir + "/" + output)
        var state = RackState()
        state.room = .cathedral
        state[.mix] = 50
        request.initialState = state
        request.blockFrames = 4096
        let store = PresetStore(factoryDirectory: nil, userDirectory: dir + "/presets")
        _ = try OfflineRenderer.render(request, presets: store)
        let r = try AudioFileReader(path: dir + "/" + output)
        var left = [Float](), right = [Float]()
        var l = [Float](repeating: 0, count: 4096), rr = l
        while true {
            let n = try r.read(left: &l, right: &rr, frames: 4096)
            if n == 0 { break }
            left += l[0..<n]
            right += rr[0..<n]
        }
        return (left, right)
    }

    func testFloatWAVWithNaNInfAndHugeSamplesRendersFinite() throws {
        let n = 6 * 48_000
        var left = noise(n, seed: 1), right = noise(n, seed: 2)
        var silencedL = left, silencedR = right
        // NaN at 1 s (left), +Inf at 2 s (right), 1e30 at 3 s (both), −Inf at 4 s (left).
        let bad: [(Int, Float, Bool, Bool)] = [(48_000, .nan, true, false), (96_000, .infinity, false, true),
                                               (144_000, 1e30, true, true), (192_000, -.infinity, true, false)]
        for (at, v, l, r) in bad {
            if l { left[at] = v; silencedL[at] = 0 }
            if r { right[at] = v; silencedR[at] = 0 }
        }
        let poisoned = try render(try writeFloatWAV("bad.wav", left, right), "bad-out.wav")
        let reference = try render(try writeFloatWAV("silenced.wav", silencedL, silencedR), "ref-out.wav")
        XCTAssertEqual(poisoned.left.count, n)
        var nonFinite = 0
        for i in 0..<poisoned.left.count where !poisoned.left[i].isFinite || !poisoned.right[i].isFinite { nonFinite += 1 }
        XCTAssertEqual(nonFinite, 0, "\(nonFinite) of \(n) output frames are not finite")
        // The same as the file with silence at those samples, bit for bit.
        XCTAssertTrue(poisoned.left == reference.left && poisoned.right == reference.right)
        // And audible: not silenced after the event.
        let tail = poisoned.left[(5 * 48_000)...].map { Double($0 * $0) }.reduce(0, +) / 48_000
        XCTAssertGreaterThan(tail, 1e-4)
    }
}
