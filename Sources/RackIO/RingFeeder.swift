import Foundation
import RackDSP
import RackEngine
import Synchronization

/// Fills a ring from a reader on its own thread. The render thread waits for data with
/// `waitFor(frames:)` and tells the feeder when it took some (`consumed()`).
final class RingFeeder: @unchecked Sendable {
    private let reader: ResamplingReader
    private let ring: StereoRing
    private let dataReady = DispatchSemaphore(value: 0)
    private let spaceReady = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var stopping = false          // written by the render thread, read after a wake
    /// True while the feeder sleeps for space: the render thread wakes it only then, and only
    /// once half the ring is free, so it refills in large batches.
    private let waiting = Atomic<Bool>(false)
    private var failure: Error?           // written by the feeder before it marks the end
    private var started = false

    init(reader: ResamplingReader, ring: StereoRing) {
        self.reader = reader
        self.ring = ring
    }

    func start() {
        started = true
        NamedThread.start("rack-reader") { [self] in run() }
    }

    private func run() {
        defer { finished.signal() }
        let chunk = 32_768
        let buffer = UniqueStereo(frames: chunk)
        let l = buffer.left.base, r = buffer.right.base
        while true {
            while ring.availableToWrite < chunk {
                waiting.store(true, ordering: .sequentiallyConsistent)
                if ring.availableToWrite >= chunk {
                    waiting.store(false, ordering: .sequentiallyConsistent)
                    break
                }
                spaceReady.wait()
                if stopping { return }
            }
            if stopping { return }
            do {
                let got = try reader.read(left: l, right: r, frames: chunk)
                if got == 0 {
                    ring.setFinished(true)
                    dataReady.signal()
                    return
                }
                ring.write(left: l, right: r, frames: got)
            } catch {
                failure = error
                ring.setFinished(true)
                dataReady.signal()
                return
            }
            dataReady.signal()
        }
    }

    /// Render thread: waits until the ring holds `frames` or the stream has ended.
    /// Throws the reader's error, if it had one.
    func waitFor(frames: Int) throws {
        while ring.availableToRead < frames && !ring.isFinished { dataReady.wait() }
        if ring.isFinished, let failure { throw failure }
    }

    /// Render thread: the player took frames; wakes the feeder when it waits and half the ring
    /// is free.
    func consumed() {
        if waiting.load(ordering: .sequentiallyConsistent) && ring.availableToWrite >= ring.capacity / 2 {
            waiting.store(false, ordering: .sequentiallyConsistent)
            spaceReady.signal()
        }
    }

    /// Ends the thread (after the render or on failure) and waits for it.
    func stop() {
        guard started else { return }
        stopping = true
        waiting.store(false, ordering: .sequentiallyConsistent)
        spaceReady.signal()
        finished.wait()
        started = false
    }
}
