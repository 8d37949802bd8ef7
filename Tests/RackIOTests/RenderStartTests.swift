import XCTest
import RackTestSupport
import Foundation
import RackDSP
import RackEngine
import RackFiles
@testable import RackIO

/// `rack render` processes a file as it is from its first frame, as sox and a plugin host do:
/// the player's 5 ms fade in belongs to live starts and seeks. (Before: a constant 0.5 came out
/// 0.0016, 0.0041, 0.0059 … and reached 0.5 only at frame 240 at 48 kHz: a drum hit at time 0
/// lost its attack.)
final class RenderStartTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = try makeTemporaryDirectory("rack-render-start")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// Renders `left`/`right` (48 kHz float WAV) with `state` (and `automation`); returns the output.
    private func render(_ left: [Float], _ right: [Float], _ state: RackState,
                        automation: String? = nil) throws -> (left: [Float], right: [Float]) {
        let input = dir + "/in.wav", output = dir + "/out.wav"
        let w = try AudioFileWriter(path: input, sampleRate: 48_000, format: .float)
        try w.write(left: left, right: right, frames: left.count)
        try w.commit()
        var request = RenderRequest(inputPath: input, outputPath: output)
        request.initialState = state
        request.automation = automation.map { Automation.parse($0, presetNames: [], presetAtIndex: { _ in nil }) }
        request.format = .float
        _ = try OfflineRenderer.render(request, presets: PresetStore(factoryDirectory: nil, userDirectory: dir + "/presets"))
        let r = try AudioFileReader(path: output)
        var outLeft = [Float](repeating: 0, count: left.count), outRight = outLeft
        let n = try r.read(left: &outLeft, right: &outRight, frames: left.count)
        XCTAssertEqual(n, left.count)
        return (outLeft, outRight)
    }

    /// Bypassed, the output is the input sample for sample from frame 0: a constant 0.5 and a
    /// step to −0.25 at frame 0 (before: the first 240 frames faded in).
    func testABypassedRenderIsTheInputFromItsFirstFrame() throws {
        let n = 4_800
        let constant = [Float](repeating: 0.5, count: n)
        let step = [Float](repeating: -0.25, count: n)
        var state = RackState()
        state[.bypass] = 1
        let out = try render(constant, step, state)
        XCTAssertEqual(Array(out.left[0..<8]), Array(constant[0..<8]), "the first frames")
        XCTAssertEqual(out.left, constant)
        XCTAssertEqual(out.right, step)
    }

    /// At mix 0 (dry only, the low-pass open, gain 0 dB) the first 5 ms (240 frames) of a
    /// constant 0.5 average 0.5 within 1 % (the low-pass's own step response aside; a 5 ms fade
    /// in averages half of it).
    func testADryRenderDoesNotFadeTheStart() throws {
        let n = 4_800
        let constant = [Float](repeating: 0.5, count: n)
        var state = RackState()
        state[.mix] = 0
        let out = try render(constant, constant, state)
        let mean = out.left[0..<240].reduce(0, +) / 240
        XCTAssertEqual(mean, 0.5, accuracy: 0.005, "the first 5 ms")
        XCTAssertEqual(out.left, out.right)
    }

    /// A seek at time 0 places the player as a recorded live session starts it, and the render
    /// fades in as that live start did (so a recording's replay is its session): bypassed, a
    /// constant 0.5 rises from 0.5/240 at frame 0 to 0.5 at frame 239 (5 ms at 48 kHz).
    func testARenderStartingAtASeekFadesInAsTheLiveStartDid() throws {
        let n = 4_800
        let constant = [Float](repeating: 0.5, count: n)
        var state = RackState()
        state[.bypass] = 1
        let out = try render(constant, constant, state, automation: "0 /rack/player/seek 0\n")
        XCTAssertEqual(out.left[0], 0.5 / 240, accuracy: 1e-6)
        XCTAssertLessThan(out.left[120], 0.5)
        XCTAssertEqual(out.left[239], 0.5, accuracy: 1e-6)
        XCTAssertTrue(out.left[240...].allSatisfy { $0 == 0.5 })
    }
}
