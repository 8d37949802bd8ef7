import Foundation
import RackDSP
import RackEngine
import Synchronization

/// Hands rendered audio to a writer thread in chunks (double-buffered), so encoding and disk
/// writes overlap the render.
final class ChunkWriter: @unchecked Sendable {
    private let writer: any AudioSink
    private let chunkFrames: Int
    /// The two chunks: one filled by the render thread while the writer thread writes the other.
    private let firstChunk: UniqueStereo, secondChunk: UniqueStereo
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

    init(writer: any AudioSink, chunkFrames: Int) {
        self.writer = writer
        self.chunkFrames = chunkFrames
        firstChunk = UniqueStereo(frames: chunkFrames)
        secondChunk = UniqueStereo(frames: chunkFrames)
        pendingFrames = [0, 0]
        free.signal()
        free.signal()
    }

    /// Chunk `index` (0 or 1) as plain pointers, valid while the writer lives.
    private func chunk(_ index: Int) -> StereoBuffers {
        index == 0 ? firstChunk.buffers : secondChunk.buffers
    }

    private func startIfNeeded() {
        guard !started else { return }
        started = true
        free.wait()   // the render thread owns buffer 0 from now on
        NamedThread.start("rack-writer") { [self] in run() }
    }

    private func run() {
        defer { done.signal() }
        var index = 0
        while true {
            ready.wait()
            let frames = pendingFrames[index]
            if frames < 0 { return }
            if failure == nil {
                do { try writer.write(left: chunk(index).left, right: chunk(index).right, frames: frames) } catch { failure = error }
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
            let buffer = chunk(filling)
            (buffer.left + filled).update(from: left + done, count: n)
            (buffer.right + filled).update(from: right + done, count: n)
            filled += n
            done += n
            if filled == chunkFrames { try handOver(frames: filled) }
        }
    }

    /// Room for the next `frames` frames in the chunk being filled, when they fit there whole:
    /// the render writes into it directly and then calls `appended(frames:)` (no copy); nil
    /// when they do not fit (render elsewhere, then `append`).
    func space(frames: Int) -> StereoBuffers? {
        startIfNeeded()
        guard frames <= chunkFrames - filled else { return nil }
        let buffer = chunk(filling)
        return StereoBuffers(left: buffer.left + filled, right: buffer.right + filled, frames: frames)
    }

    /// The `frames` frames written into the last `space(frames:)` are in; a full chunk goes to
    /// the writer thread.
    func appended(frames: Int) throws {
        filled += frames
        if filled == chunkFrames { try handOver(frames: filled) }
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
