import XCTest
@testable import RackDSP

/// The room table: one row per `Room` case, in case order, names as the cases; the lookups and
/// texts built on it; the supported sample-rate range.
final class RoomTableTests: XCTestCase {
    func testTableHasOneRowPerCaseInCaseOrder() {
        XCTAssertEqual(RoomDefinition.table.count, Room.allCases.count)
        for (i, room) in Room.allCases.enumerated() {
            XCTAssertEqual(room.rawValue, i)
            XCTAssertEqual(room.index, i)
            XCTAssertEqual(Room.at(index: i), room)
            // The name string is the case's own name.
            XCTAssertEqual(room.name, String(describing: room))
            XCTAssertEqual(Room(name: room.name), room)
        }
        XCTAssertNil(Room.at(index: -1))
        XCTAssertNil(Room.at(index: Room.allCases.count))
        XCTAssertNil(Room(name: "hall"))
        // Names match ignoring case (exact first).
        XCTAssertEqual(Room(name: "MediumHall"), .mediumHall)
        XCTAssertEqual(Room(name: "PLATE"), .plate)
        XCTAssertEqual(Room(name: "largeroom2"), .largeRoom2)
        XCTAssertNil(Room(name: "medium Hall"))
        XCTAssertEqual(Set(RoomDefinition.table.map(\.name)).count, Room.allCases.count)
    }

    func testRowsAreWithinTheirDocumentedRanges() {
        for d in RoomDefinition.table {
            XCTAssertGreaterThan(d.targetDecaySeconds, 0, d.name)
            XCTAssertGreaterThan(d.size, 0, d.name)
            XCTAssertTrue((0.5...0.75).contains(d.diffusion), d.name)
            XCTAssertGreaterThanOrEqual(d.preDelay, 0, d.name)
            XCTAssertGreaterThanOrEqual(d.earlyLevel, 0, d.name)
            XCTAssertLessThan(d.crossover, d.dampingHz, d.name)
            XCTAssertTrue(ReverbShape.dampingRange.contains(d.dampingHz), d.name)
            XCTAssertTrue(ReverbShape.decayRange.contains(d.targetDecaySeconds), d.name)
            XCTAssertGreaterThan(d.calibration, 1, d.name)
        }
    }

    func testDefaultRoomAndUnknownNameText() {
        XCTAssertEqual(Room.default, .mediumHall)
        XCTAssertEqual(Room.unknownNameReason("hall"),
                       "unknown room 'hall' (one of smallRoom, mediumRoom, largeRoom, largeRoom2, "
                       + "mediumChamber, largeChamber, plate, mediumHall, mediumHall2, mediumHall3, "
                       + "largeHall, largeHall2, cathedral)")
    }

    func testSupportedSampleRatesAndTheReverbAcceptsThem() {
        XCTAssertEqual(SampleRates.supported, 8_000...384_000)
        for rate in [SampleRates.supported.lowerBound, SampleRates.supported.upperBound] {
            var reverb = Reverb()
            reverb.prepare(sampleRate: rate, maxFrames: 64)
            XCTAssertEqual(reverb.sampleRate, rate)
        }
    }
}
