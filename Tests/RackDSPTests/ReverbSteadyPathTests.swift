import XCTest
@testable import RackDSP

/// `Reverb`'s steady path (`ReverbSteadyPath.swift`) against its general path: the same input
/// rendered in one call (whole groups: the steady path wherever it applies) and in calls of at
/// most 7 frames (never a whole group within one call: the general path throughout) must be
/// bit-identical: at the room's own values, with a shape set, across a non-finite input that
/// makes the network recover, and around a room change (the general path from the change on).
final class ReverbSteadyPathTests: XCTestCase {
    typealias IRA = ImpulseResponseAnalysis

    /// Both channels of `input` (right: the input reversed) through a reverb in `room`,
    /// `shape` set before the first sample, calls cycling through `sizes`; `switchAt`: the frame
    /// at which the room changes to plate (a 2400-frame crossfade). Also returns whether the
    /// reverb was steady after the last call.
    static func render(_ input: [Float], sizes: [Int], room: Room = .mediumHall, shape: ReverbShape? = nil,
                       switchAt: Int? = nil) -> (output: [Float], steady: Bool) {
        var reverb = Reverb()
        reverb.prepare(sampleRate: 48_000, maxFrames: input.count)
        reverb.setRoom(room, crossfadeFrames: 0)
        if let shape { reverb.setShape(shape) }
        let right = Array(input.reversed())
        var outL = [Float](repeating: 0, count: input.count), outR = outL
        input.withUnsafeBufferPointer { x in
            right.withUnsafeBufferPointer { y in
                outL.withUnsafeMutableBufferPointer { l in
                    outR.withUnsafeMutableBufferPointer { r in
                        var i = 0, s = 0
                        while i < input.count {
                            var m = min(sizes[s % sizes.count], input.count - i)
                            if let at = switchAt, i < at { m = min(m, at - i) }
                            if let at = switchAt, i == at { reverb.setRoom(.plate, crossfadeFrames: 2400) }
                            reverb.process(inputLeft: x.baseAddress! + i, inputRight: y.baseAddress! + i,
                                           outputLeft: l.baseAddress! + i, outputRight: r.baseAddress! + i, frames: m)
                            i += m
                            s += 1
                        }
                    }
                }
            }
        }
        let steady = reverb.slots.map { reverb.isSteady($0) } ?? false
        return (outL + outR, steady)
    }

    /// Calls of 1…7 frames: no call holds a whole group, so the steady path never runs.
    static let generalSizes = [7, 1, 5, 3, 2, 6, 4]

    func testTheSteadyPathMatchesTheGeneralPathBitForBit() {
        let input = IRA.noise(count: 6_000, amplitude: 0.5)
        let steady = Self.render(input, sizes: [input.count])
        let general = Self.render(input, sizes: Self.generalSizes)
        XCTAssertTrue(steady.steady, "a reverb at its room's own values is steady: the path under test ran")
        XCTAssertTrue(steady.output == general.output, "steady and general paths differ")
        XCTAssertGreaterThan(IRA.energy(steady.output), 0)
    }

    func testWithAShapeSetTheSteadyPathMatchesTheGeneralPath() {
        let input = IRA.noise(count: 6_000, amplitude: 0.5)
        let shape = ReverbShape(decaySeconds: 0.7, predelaySeconds: 0.012, dampingHz: 4_000, lowcutHz: 150,
                                highcutHz: 8_000, width: 1.3)
        let steady = Self.render(input, sizes: [input.count], shape: shape)
        let general = Self.render(input, sizes: Self.generalSizes, shape: shape)
        XCTAssertTrue(steady.steady, "with a shape taken, the reverb is steady again")
        XCTAssertTrue(steady.output == general.output, "steady and general paths differ with a shape")
    }

    func testARecoveryFromANonFiniteInputMatchesTheGeneralPath() {
        var input = IRA.noise(count: 6_000, amplitude: 0.5)
        input[3_001] = .nan
        let steady = Self.render(input, sizes: [input.count])
        let general = Self.render(input, sizes: Self.generalSizes)
        XCTAssertTrue(steady.output.allSatisfy(\.isFinite))
        XCTAssertTrue(steady.output == general.output, "the recovery differs between the paths")
    }

    func testAroundARoomChangeTheSteadyPathMatchesTheGeneralPath() {
        let input = IRA.noise(count: 12_000, amplitude: 0.5)
        let steady = Self.render(input, sizes: [input.count], switchAt: 2_003)
        let general = Self.render(input, sizes: Self.generalSizes, switchAt: 2_003)
        XCTAssertTrue(steady.output == general.output, "a room change differs between the paths")
    }
}
