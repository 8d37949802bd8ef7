import Foundation
import RackDSP
import RackEngine
import XCTest

/// The lock-free single-producer/single-consumer queues (`CommandQueue`, `MIDIFeedbackQueue`,
/// `StereoRing`) under real concurrency: a producer and
/// a consumer thread hand millions of items through a small queue (so that it wraps and runs
/// full and empty all the time), and the consumer checks that every item arrives once, in
/// order, intact. `scripts/test` runs this file under the thread sanitizer too, through the
/// package in Tests/ThreadSanitizer that links it (`swift test --package-path
/// Tests/ThreadSanitizer --sanitize=thread`), which reports any access to the queues' storage
/// that their release/acquire counters do not order.
final class SPSCStressTests: XCTestCase {
    /// Items per test; TSan makes each access ~10× slower, so the counts stay in the millions
    /// without the sanitized run taking minutes.
    static let events = 2_000_000

    /// Event `i` of the stream, every field derived from i (a torn or stale slot shows as a
    /// mismatch): a change with a ramp, or a marker. Plain values: no allocation.
    static func event(_ i: Int, _ parameters: [ParameterID]) -> EngineEvent {
        if i % 3 != 0 { return EngineEvent(sampleTime: Int64(i), .marker(i)) }
        return EngineEvent(sampleTime: Int64(i), .set(parameters[i % parameters.count], Double(i) * 0.5,
                                                      ramp: .frames(Int64(i % 1000) + 1)))
    }
    static let frames = 4_000_000

    /// Runs `producer` on its own thread and `consumer` on this one; waits for both.
    private func concurrently(producer: @escaping @Sendable () -> Void, consumer: () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let t = Thread {
            producer()
            done.signal()
        }
        t.start()
        consumer()
        done.wait()
    }

    func testCommandQueueDeliversEveryEventOnceInOrderAndIntact() {
        let queue = CommandQueue(minimumCapacity: 512)
        defer { queue.deallocate() }
        let count = Self.events
        // No allocation inside the loops: malloc's own locks would order the threads and hide
        // a missing release/acquire from the sanitizer.
        let parameters = ParameterID.allCases
        concurrently(producer: {
            for i in 0..<count {
                while !queue.push(.event(Self.event(i, parameters))) { sched_yield() }
            }
        }, consumer: {
            var expected = 0
            var mismatches = 0
            var firstMismatch = ""
            while expected < count {
                guard case let .event(e)? = queue.pop() else { sched_yield(); continue }
                let i = expected
                if e != Self.event(i, parameters) {
                    if mismatches == 0 { firstMismatch = "item \(i): got time \(e.time) action \(e.action)" }
                    mismatches += 1
                }
                expected += 1
            }
            XCTAssertEqual(mismatches, 0, firstMismatch)
            XCTAssertNil(queue.pop(), "nothing beyond what was pushed")
        })
    }

    func testMIDIFeedbackQueueDeliversEveryMessageOnceInOrderAndIntact() {
        let queue = MIDIFeedbackQueue()
        defer { queue.deallocate() }
        let count = Self.events
        // Message i: channel, controller and value all derived from i (a slot a lap behind
        // differs in its controller).
        @Sendable func message(_ i: Int) -> (channel: Int, controller: Int, value: UInt8) {
            ((i & 15) + 1, (i >> 4) & 127, UInt8((i >> 11) & 127))
        }
        concurrently(producer: {
            for i in 0..<count {
                while queue.count >= MIDIFeedbackQueue.capacity { sched_yield() }   // only the consumer makes room
                let m = message(i)
                queue.push(channel: m.channel, controller: m.controller, value: m.value)
            }
        }, consumer: {
            let out = UnsafeMutablePointer<UInt8>.allocate(capacity: 3 * 64)
            defer { out.deallocate() }
            var got = 0
            var mismatches = 0
            var firstMismatch = ""
            var size = 1
            while got < count {
                size = (size * 5 + 17) % 64 + 1   // 1…64 a cycle, varying
                let n = queue.drain(into: out, capacity: size)
                for j in 0..<n {
                    let m = message(got + j)
                    let expected: [UInt8] = [0xB0 | UInt8(m.channel - 1), UInt8(m.controller), m.value]
                    if Array(UnsafeBufferPointer(start: out + 3 * j, count: 3)) != expected {
                        if mismatches == 0 { firstMismatch = "message \(got + j): \(out[3 * j]) \(out[3 * j + 1]) \(out[3 * j + 2])" }
                        mismatches += 1
                    }
                }
                got += n
                if n == 0 { sched_yield() }
            }
            XCTAssertEqual(mismatches, 0, firstMismatch)
            XCTAssertEqual(queue.drain(into: out, capacity: 64), 0, "nothing beyond what was pushed")
        })
        XCTAssertEqual(queue.dropped, 0, "the producer never pushed into a full ring")
    }

    func testStereoRingDeliversEveryFrameOnceInOrderAndIntact() {
        let ring = StereoRing(minimumCapacity: 4096)
        defer { ring.deallocate() }
        let total = Self.frames
        // Frame k: left = k mod 2^24 (exact in a Float), right = −left − 1.
        @Sendable func sample(_ k: Int) -> Float { Float(k & 0xFF_FFFF) }
        concurrently(producer: {
            let chunk = 700
            let l = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
            let r = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
            defer { l.deallocate(); r.deallocate() }
            var next = 0
            var size = 1
            while next < total {
                size = (size * 7 + 37) % chunk + 1   // 1…chunk, varying: every wrap position is met
                let n = min(size, total - next)
                for j in 0..<n {
                    l[j] = sample(next + j)
                    r[j] = -sample(next + j) - 1
                }
                var written = 0
                while written < n {
                    let w = ring.write(left: l + written, right: r + written, frames: n - written)
                    if w == 0 { sched_yield() }
                    written += w
                }
                next += n
            }
            // The end marker is published after the last frame: a consumer that sees it must
            // also see every frame.
            ring.setFinished(true)
        }, consumer: {
            let chunk = 513
            let l = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
            let r = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
            defer { l.deallocate(); r.deallocate() }
            var got = 0
            var mismatches = 0
            var firstMismatch = ""
            var size = 1
            while true {
                let finished = ring.isFinished
                size = (size * 5 + 53) % chunk + 1
                let n = ring.read(left: l, right: r, frames: size)
                for j in 0..<n where l[j] != sample(got + j) || r[j] != -sample(got + j) - 1 {
                    if mismatches == 0 { firstMismatch = "frame \(got + j): \(l[j]), \(r[j])" }
                    mismatches += 1
                }
                got += n
                if n == 0 {
                    if finished { break }
                    sched_yield()
                }
            }
            XCTAssertEqual(got, total, "frames delivered")
            XCTAssertEqual(mismatches, 0, firstMismatch)
            XCTAssertEqual(ring.framesRead, total)
        })
    }
}
