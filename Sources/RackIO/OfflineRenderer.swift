import Foundation
import RackDSP
import RackEngine
import RackFiles
import Synchronization

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
        // Before anything is created: a rate the engine cannot serve is bad data (65).
        try EngineFormat.check(sampleRate: rate, of: request.sampleRate == nil ? "'\(request.inputName)'" : "--rate", status: .dataError)
        guard request.blockFrames >= 1 && request.blockFrames <= EngineFormat.maximumFrames else {
            throw RackError(.usage, "--block must be 1…\(EngineFormat.maximumFrames) frames")
        }
        let reader = try ResamplingReader(path: request.inputPath, targetRate: rate)
        let block = request.blockFrames
        var playback = try OfflinePlayback(reader: reader, automation: request.automation, rate: rate,
                                           ringFrames: OfflineTuning.ringFrames + block)
        let totalFrames = playback.playFrames + Int64((request.tailSeconds * rate).rounded())
        // Before the output is created: a render longer than a day is refused (65).
        if Double(totalFrames) / rate > Automation.maximumTimeSeconds {
            throw RackError(.dataError, "the render would last \(formatNumber((Double(totalFrames) / rate).rounded())) s, "
                            + "beyond the longest render of \(formatNumber(Automation.maximumTimeSeconds)) s (24 h)")
        }
        let format = request.format
            ?? SampleFormat.renderDefault(input: inputInfo.sampleFormat, container: request.outputContainer).format
        let writer = try request.makeSink(sampleRate: rate, format: format, frames: totalFrames)

        let start = request.automation?.startingState(from: request.initialState, presets: presets) ?? request.initialState
        let engine = Engine(sampleRate: rate, maxFrames: block, state: start)
        let ring = playback.ring
        // The reader decodes ahead on its own thread, like the live player's reader; offline
        // the render waits for it instead of counting an underrun.
        let feeder = RingFeeder(reader: reader, ring: ring)
        let drain = ChunkWriter(writer: writer, chunkFrames: OfflineTuning.writeChunkFrames)
        defer {
            feeder.stop()
            engine.attachPlayer(nil, playing: false)
            ring.deallocate()
        }
        // The file as it is from its first frame (sox and a plugin host do not fade it in): the
        // player's fade belongs to live starts and seeks (a recorded session's seek at time 0).
        engine.attachPlayer(ring, playing: true, fadeIn: playback.fadesIn)

        let events = (request.automation?.engineEvents(sampleRate: rate, presets: presets, lengthFrames: totalFrames) ?? [])
            + (playback.endEvent.map { [$0] } ?? [])
        let rendered: Int64
        do {
            feeder.start()
            rendered = try renderBlocks(engine: engine, playback: &playback, feeder: feeder, drain: drain, events: events,
                                        totalFrames: totalFrames, blockFrames: block, progress: progress)
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

    /// The render loop: block after block, each event scheduled once it can touch a block's
    /// control segments, the reader waited for, the output handed to the writer thread.
    /// Returns the frames rendered.
    static func renderBlocks(engine: Engine, playback: inout OfflinePlayback, feeder: RingFeeder, drain: ChunkWriter,
                             events: [EngineEvent], totalFrames: Int64, blockFrames block: Int,
                             progress: ((Double) -> Void)?) throws -> Int64 {
        var nextEvent = 0
        let output = UniqueStereo(frames: block)
        let outL = output.left.base, outR = output.right.base
        var rendered: Int64 = 0
        var lastProgress = -1.0
        while rendered < totalFrames {
            let n = playback.nextBlock(at: rendered, frames: Int(min(Int64(block), totalFrames - rendered)))
            try feeder.waitFor(frames: n)
            // Every event that can touch this block's control segments is scheduled.
            let horizon = rendered + Int64(n) + Int64(engine.lookaheadFrames)
            while nextEvent < events.count && events[nextEvent].time.isDue(at: horizon - 1) {
                engine.schedule(events[nextEvent])
                nextEvent += 1
            }
            // Straight into the writer's chunk when the block fits there (the default block
            // divides the chunk), else through `output` and a copy.
            let direct = drain.space(frames: n)
            let left = direct?.left ?? outL, right = direct?.right ?? outR
            let status = engine.render(frames: n, inputLeft: nil, inputRight: nil, outputLeft: left, outputRight: right)
            guard status == .success || status == .insufficientDataFromInputNode else {
                throw RackError(.ioError, "render failed at frame \(rendered)")
            }
            feeder.consumed()
            if direct != nil {
                try drain.appended(frames: n)
            } else {
                try drain.append(left: outL, right: outR, frames: n)
            }
            rendered += Int64(n)
            if let progress {
                let p = Double(rendered) / Double(max(totalFrames, 1))
                if p - lastProgress >= 0.01 || rendered == totalFrames { progress(p); lastProgress = p }
            }
        }
        return rendered
    }
}

/// Sizes of the offline pipeline, in frames.
enum OfflineTuning {
    /// How far the reader decodes ahead of the render.
    static let ringFrames = 131_072
    /// Frames per hand-over to the writer thread.
    static let writeChunkFrames = 65_536
}
