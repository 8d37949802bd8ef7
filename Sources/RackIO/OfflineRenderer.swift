import Foundation
import RackDSP
import RackEngine
import Synchronization

/// What `rack render` is asked to do.
public struct RenderRequest: Sendable {
    public var inputPath: String
    public var outputPath: String
    /// Starting state (preset and `--set` already applied).
    public var initialState = RackState()
    /// Automation events, already checked.
    public var automation: Automation?
    /// Reverb tail appended after the input ends, in seconds.
    public var tailSeconds: Double = 0
    /// Render rate in Hz; nil: the input file's rate.
    public var sampleRate: Double?
    /// Frames per render call (the result does not depend on it).
    public var blockFrames = 16_384
    /// Output sample format; nil: the input's, or float when the input has none of 16/24/float.
    public var format: SampleFormat?

    public init(inputPath: String, outputPath: String) {
        self.inputPath = inputPath
        self.outputPath = outputPath
    }
}

/// What a render did.
public struct RenderReport: Sendable {
    public let frames: Int64
    public let sampleRate: Double
    public let format: SampleFormat
    public let seconds: Double
    /// Audio seconds rendered per wall-clock second.
    public var realtimeFactor: Double { Double(frames) / sampleRate / max(seconds, 1e-9) }
}

/// The offline driver: the deterministic twin of the JACK client. It feeds the same engine the
/// same way (a reader fills the player's ring, events are scheduled by sample time, the engine
/// renders block after block) but pulls as fast as the machine allows and may wait on the disk.
public enum OfflineRenderer {
    /// Renders `request`; `progress` is called with 0…1 now and then. Nothing is left at the
    /// output path on failure.
    public static func render(_ request: RenderRequest, presets: PresetStore,
                              progress: ((Double) -> Void)? = nil) throws -> RenderReport {
        let started = DispatchTime.now()
        let probe = try AudioFileReader(path: request.inputPath)
        let inputInfo = probe.info
        probe.close()
        let rate = request.sampleRate ?? inputInfo.sampleRate
        let reader = try ResamplingReader(path: request.inputPath, targetRate: rate)
        let inputFrames = reader.framesAtTargetRate
        let totalFrames = inputFrames + Int64((request.tailSeconds * rate).rounded())
        let format = request.format ?? inputInfo.sampleFormat ?? .float
        let writer = try AudioFileWriter(path: request.outputPath, sampleRate: rate, format: format)

        let block = request.blockFrames
        let engine = Engine(sampleRate: rate, maxFrames: block, state: request.initialState)
        let ring = StereoRing(minimumCapacity: OfflineTuning.ringFrames + block)
        // The reader decodes ahead on its own thread, like the live player's reader; offline
        // the render waits for it instead of counting an underrun.
        let feeder = RingFeeder(reader: reader, ring: ring)
        let drain = ChunkWriter(writer: writer, chunkFrames: OfflineTuning.writeChunkFrames)
        defer {
            feeder.stop()
            engine.attachPlayer(nil, playing: false)
            ring.deallocate()
        }
        engine.attachPlayer(ring, playing: true)

        let events = request.automation?.engineEvents(sampleRate: rate, presets: presets, lengthFrames: totalFrames) ?? []
        var nextEvent = 0
        let outL = UnsafeMutablePointer<Float>.allocate(capacity: block)
        let outR = UnsafeMutablePointer<Float>.allocate(capacity: block)
        defer { outL.deallocate(); outR.deallocate() }

        var rendered: Int64 = 0
        var lastProgress = -1.0
        do {
            feeder.start()
            while rendered < totalFrames {
                let n = Int(min(Int64(block), totalFrames - rendered))
                try feeder.waitFor(frames: n)
                // Every event that can touch this block's control segments is scheduled.
                let horizon = rendered + Int64(n) + Int64(engine.lookaheadFrames)
                while nextEvent < events.count && events[nextEvent].sampleTime < horizon {
                    engine.schedule(events[nextEvent])
                    nextEvent += 1
                }
                let status = engine.render(frames: n, inputLeft: nil, inputRight: nil, outputLeft: outL, outputRight: outR)
                guard status == .success || status == .insufficientDataFromInputNode else {
                    throw RackError(.ioError, "rack: render failed at frame \(rendered)")
                }
                feeder.consumed()
                try drain.append(left: outL, right: outR, frames: n)
                rendered += Int64(n)
                if let progress {
                    let p = Double(rendered) / Double(max(totalFrames, 1))
                    if p - lastProgress >= 0.01 || rendered == totalFrames { progress(p); lastProgress = p }
                }
            }
            try drain.finish()
            // Atomic (temp + rename) but not fsynced: a render is reproducible, speed matters.
            try writer.commit(durable: false)
        } catch {
            drain.cancel()
            writer.abort()
            throw error
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        return RenderReport(frames: rendered, sampleRate: rate, format: format, seconds: seconds)
    }
}

/// Sizes of the offline pipeline, in frames.
enum OfflineTuning {
    /// How far the reader decodes ahead of the render.
    static let ringFrames = 65_536
    /// Frames per hand-over to the writer thread.
    static let writeChunkFrames = 16_384
}

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
    private var thread: Thread?

    init(reader: ResamplingReader, ring: StereoRing) {
        self.reader = reader
        self.ring = ring
    }

    func start() {
        let t = Thread { [self] in run() }
        t.name = "rack-render-reader"
        thread = t
        t.start()
    }

    private func run() {
        defer { finished.signal() }
        let chunk = 8192
        let l = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
        let r = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
        defer { l.deallocate(); r.deallocate() }
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
        guard thread != nil else { return }
        stopping = true
        waiting.store(false, ordering: .sequentiallyConsistent)
        spaceReady.signal()
        finished.wait()
        thread = nil
    }
}

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
