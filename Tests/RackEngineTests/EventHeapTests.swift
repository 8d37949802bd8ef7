import XCTest
@testable import RackEngine

final class EventHeapTests: XCTestCase {
    func event(_ t: Int64, _ value: Double) -> EngineEvent {
        EngineEvent(sampleTime: t, .set(.mix, value, ramp: .standard))
    }

    func testOrdersBySampleTimeThenArrival() {
        var heap = EventHeap(capacity: 64)
        // Deterministic shuffle of times with repeats; the value records the arrival order.
        var x: UInt64 = 7
        var inserted: [(Int64, Double)] = []
        for i in 0..<50 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            let t = Int64(x >> 59)          // 0…31: many ties
            heap.insert(event(t, Double(i)), at: t)
            inserted.append((t, Double(i)))
        }
        XCTAssertEqual(heap.count, 50)
        XCTAssertEqual(heap.peekSample(), inserted.map(\.0).min())
        var popped: [(Int64, Double)] = []
        while let e = heap.pop() { popped.append((e.time.sample!, e.action.parameterChange?.value ?? .nan)) }
        let expected = inserted.sorted { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        XCTAssertEqual(popped.map(\.0), expected.map(\.0))
        XCTAssertEqual(popped.map(\.1), expected.map(\.1))
        XCTAssertNil(heap.peek())
        XCTAssertEqual(heap.count, 0)
    }

    func testDropsAndCountsWhenFull() {
        var heap = EventHeap(capacity: 3)
        for i in 0..<5 { heap.insert(event(Int64(10 - i), Double(i)), at: Int64(10 - i)) }
        XCTAssertEqual(heap.count, 3)
        XCTAssertEqual(heap.droppedEvents, 2)
        // The first three stay; the later ones were dropped.
        XCTAssertEqual([heap.pop(), heap.pop(), heap.pop()].map { $0?.action.parameterChange?.value }, [2, 1, 0])
        XCTAssertNil(heap.pop())
    }

    func testRemovingOneOwnersEventsKeepsTheOthersInTimeOrder() {
        let a = EventOwner(address: 0x7F00_0001, port: 9000, isWebSocket: false)
        let b = EventOwner(address: 0x7F00_0001, port: 9001, isWebSocket: false)
        var heap = EventHeap(capacity: 64)
        var x: UInt64 = 11
        var kept: [(Int64, Double)] = []
        for i in 0..<40 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            let t = Int64(x >> 58)          // 0…63
            var e = event(t, Double(i))
            e.owner = i % 3 == 0 ? a : b
            heap.insert(e, at: t)
            if i % 3 != 0 { kept.append((t, Double(i))) }
        }
        XCTAssertEqual(heap.removeAll(ownedBy: a), 14)
        XCTAssertEqual(heap.count, kept.count)
        var popped: [(Int64, Double)] = []
        while let s = heap.peekSample(), let e = heap.pop() {
            XCTAssertEqual(s, e.time.sample, "each slot's sample moved with its event")
            popped.append((e.time.sample!, e.action.parameterChange?.value ?? .nan))
        }
        let expected = kept.sorted { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        XCTAssertEqual(popped.map(\.0), expected.map(\.0))
        XCTAssertEqual(popped.map(\.1), expected.map(\.1))
    }
}
