import XCTest
@testable import RackOSC

/// The meters' and the status's pushes: a fixed grid, whatever the loop's wakes.
final class PushClockTests: XCTestCase {
    /// A loop woken late by up to 90 % of a period (a loaded machine), each wake at the clock's
    /// own deadline plus its lateness, pushes 15 times a second over 60 s: 900 pushes within one.
    /// (Timed from the last push, the same wakes gave one push per period plus its lateness.)
    func testLateWakesDoNotLowerTheRate() {
        var clock = PushClock(hertz: 15)
        var generator = SystemRandomNumberGenerator()
        var now = 0.0, pushes = 0
        while now < 60 {
            if clock.take(now: now) { pushes += 1 }
            now = max(now, clock.due) + Double.random(in: 0..<(0.9 * clock.period), using: &generator)
        }
        XCTAssertEqual(Double(pushes), 60 * 15, accuracy: 1)
    }

    /// Never two pushes at one moment, and a pass more than a period behind the grid pushes
    /// once and starts the grid from itself: no burst of the pushes missed while the loop slept.
    func testALongSleepGivesOnePushNotABurst() {
        var clock = PushClock(hertz: 15)
        XCTAssertTrue(clock.take(now: 10))
        XCTAssertFalse(clock.take(now: 10))
        XCTAssertEqual(clock.due, 10 + clock.period, accuracy: 1e-12)
        XCTAssertTrue(clock.take(now: 12))                          // 2 s asleep
        XCTAssertFalse(clock.take(now: 12 + 0.5 * clock.period))
        XCTAssertEqual(clock.due, 12 + clock.period, accuracy: 1e-12)
    }

    /// A wake a little late keeps the grid: the next push is due a period after the last one
    /// was due, not after the wake.
    func testALateWakeKeepsTheGrid() {
        var clock = PushClock(hertz: 15)
        _ = clock.take(now: 0)
        XCTAssertTrue(clock.take(now: clock.period + 0.02))
        XCTAssertEqual(clock.due, 2 * clock.period, accuracy: 1e-12)
    }
}
