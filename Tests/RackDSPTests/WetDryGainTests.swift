import XCTest
@testable import RackDSP

final class WetDryGainTests: XCTestCase {
    /// Mixes `dry` and `wet` (both channels alike) over `segments`; returns the left output.
    func mix(_ dry: [Float], _ wet: [Float], _ segments: [WetDryGain.Segment],
             mixer: inout WetDryGain) -> [Float] {
        var dryL = dry, dryR = dry, wetL = wet, wetR = wet
        var out = [Float](repeating: .nan, count: dry.count), outR = out
        for s in segments { mixer.append(s) }
        mixer.process(dryLeft: &dryL, dryRight: &dryR, wetLeft: &wetL, wetRight: &wetR,
                      outputLeft: &out, outputRight: &outR, frames: dry.count)
        XCTAssertEqual(out, outR)
        return out
    }

    func testSteadyMixAndGain() {
        var mixer = WetDryGain()
        mixer.prepare(sampleRate: 48_000, maxFrames: 4)
        let out = mix([1, 1, -1, 0], [0, 2, 0, 4],
                      [.init(start: 0, end: 4, offset: 0, length: 4, mixFrom: 0.25, mixTo: 0.25, gainFrom: 2, gainTo: 2)],
                      mixer: &mixer)
        // (dry + (wet − dry)·0.25)·2
        XCTAssertEqual(out, [1.5, 2.5, -1.5, 2])
        XCTAssertEqual(mixer.meter.peakLeft, 2.5)
        XCTAssertEqual(mixer.meter.sumSquaresLeft, 2.25 + 6.25 + 2.25 + 4)
        XCTAssertEqual(mixer.meter.frames, 4)
    }

    func testRampsInterpolateAcrossTheControlSegment() {
        var mixer = WetDryGain()
        mixer.prepare(sampleRate: 48_000, maxFrames: 8)
        // A control segment of 8 frames from dry at unit gain to wet at gain 0, rendered as
        // two stretches: the second starts 4 frames into it.
        let ones = [Float](repeating: 1, count: 8), zeros = [Float](repeating: 0, count: 8)
        let whole = mix(ones, zeros, [.init(start: 0, end: 8, offset: 0, length: 8, mixFrom: 0, mixTo: 1, gainFrom: 1, gainTo: 1)],
                        mixer: &mixer)
        XCTAssertEqual(whole, (0..<8).map { 1 - Float($0) / 8 })
        let split = mix(ones, zeros, [.init(start: 0, end: 4, offset: 0, length: 8, mixFrom: 0, mixTo: 1, gainFrom: 1, gainTo: 1),
                                      .init(start: 4, end: 8, offset: 4, length: 8, mixFrom: 0, mixTo: 1, gainFrom: 1, gainTo: 1)],
                        mixer: &mixer)
        XCTAssertEqual(split, whole)
    }

    func testPeakWindowAndRunningEnergy() {
        var mixer = WetDryGain()
        mixer.prepare(sampleRate: 48_000, maxFrames: 2)
        let steady = WetDryGain.Segment(start: 0, end: 2, offset: 0, length: 2, mixFrom: 0, mixTo: 0, gainFrom: 1, gainTo: 1)
        _ = mix([3, -4], [0, 0], [steady], mixer: &mixer)
        _ = mix([1, 0], [0, 0], [steady], mixer: &mixer)
        XCTAssertEqual(mixer.meter.peakLeft, 4)          // the window keeps the largest
        XCTAssertEqual(mixer.meter.sumSquaresLeft, 26)   // 9 + 16 + 1
        XCTAssertEqual(mixer.meter.frames, 4)
        mixer.resetPeaks()
        _ = mix([1, 0], [0, 0], [steady], mixer: &mixer)
        XCTAssertEqual(mixer.meter.peakLeft, 1)
        XCTAssertEqual(mixer.meter.sumSquaresLeft, 27)
    }
}
