import Foundation
import RackDSP
import RackEngine
import Synchronization

/// Hands rendered audio to a writer thread in chunks (double-buffered), so encoding and disk
/// writes overlap the render.
final class ChunkWriter: @unchecked Sendable {
    private let writer: AudioFileWriter
    private let chunkFrames: Int
    private var buffers: [(UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)]
    private var filling = 0
    private var filled = 0
    private var pendingFrames: [Int]
    // Semaphores start at 0 and are signalled up: libdispatch traps when one is freed below
    // its initial value.
    private let free = DispatchSemaphore(value: 0)
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var failure: Error?
    private var closing = false
    private var started = false

    init(writer: AudioFileWriter, chunkFrames: Int) {
        self.writer = writer
        self.chunkFrames = chunkFrames
        buffers = (0..<2).map { _ in (.allocate(capacity: chunkFrames), .allocate(capacity: chunkFrames)) }
        pendingFrames = [0, 0]
        free.signal()
        free.signal()
    }

    deinit {
        for (l, r) in buffers { l.deallocate(); r.deallocate() }
    }

    private func startIfNeeded() {
        guard !started else { return }
        started = true
        free.wait()   // the render thread owns buffer 0 from now on
        let t = Thread { [self] in run() }
        t.name = "rack-render-writer"
        t.start()
    }

    private func run() {
        defer { done.signal() }
        var index = 0
        while true {
            ready.wait()
            let frames = pendingFrames[index]
            if frames < 0 { return }
            if failure == nil {
                do { try writer.write(left: buffers[index].0, right: buffers[index].1, frames: frames) } catch { failure = error }
            }
            index ^= 1
            free.signal()
        }
    }

    /// Copies frames in; full chunks go to the writer thread.
    func append(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) throws {
        startIfNeeded()
        var done = 0
        while done < frames {
            let n = min(frames - done, chunkFrames - filled)
            (buffers[filling].0 + filled).update(from: left + done, count: n)
            (buffers[filling].1 + filled).update(from: right + done, count: n)
            filled += n
            done += n
            if filled == chunkFrames { try handOver(frames: filled) }
        }
    }

    private func handOver(frames: Int) throws {
        pendingFrames[filling] = frames
        ready.signal()
        filling ^= 1
        filled = 0
        free.wait()
        if let failure { throw failure }
    }

    /// Writes what is left and waits for the writer thread to finish.
    func finish() throws {
        startIfNeeded()
        if filled > 0 { try handOver(frames: filled) }
        closing = true
        pendingFrames[filling] = -1
        ready.signal()
        done.wait()
        if let failure { throw failure }
    }

    /// Stops the writer thread after a failure elsewhere.
    func cancel() {
        guard started, !closing else { return }
        closing = true
        pendingFrames[filling] = -1
        ready.signal()
        done.wait()
    }
}
