import Foundation
import RackDSP
import RackEngine

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
    public var blockFrames = 1024
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
        let ring = StereoRing(minimumCapacity: 2 * block + 8192)
        defer { engine.attachPlayer(nil, playing: false); ring.deallocate() }
        engine.attachPlayer(ring, playing: true)

        let events = request.automation?.engineEvents(sampleRate: rate, presets: presets, lengthFrames: totalFrames) ?? []
        var nextEvent = 0

        let chunk = 8192
        let readL = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
        let readR = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
        let outL = UnsafeMutablePointer<Float>.allocate(capacity: block)
        let outR = UnsafeMutablePointer<Float>.allocate(capacity: block)
        defer { readL.deallocate(); readR.deallocate(); outL.deallocate(); outR.deallocate() }

        var rendered: Int64 = 0
        var lastProgress = -1.0
        do {
            while rendered < totalFrames {
                let n = Int(min(Int64(block), totalFrames - rendered))
                // Keep the ring ahead of the player: offline we may wait for the disk.
                while ring.availableToRead < n && !ring.isFinished {
                    let want = min(chunk, ring.availableToWrite)
                    let got = try reader.read(left: readL, right: readR, frames: want)
                    if got == 0 { ring.setFinished(true) } else { ring.write(left: readL, right: readR, frames: got) }
                }
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
                try writer.write(left: outL, right: outR, frames: n)
                rendered += Int64(n)
                if let progress {
                    let p = Double(rendered) / Double(max(totalFrames, 1))
                    if p - lastProgress >= 0.01 || rendered == totalFrames { progress(p); lastProgress = p }
                }
            }
            // Atomic (temp + rename) but not fsynced: a render is reproducible, speed matters.
            try writer.commit(durable: false)
        } catch {
            writer.abort()
            throw error
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        return RenderReport(frames: rendered, sampleRate: rate, format: format, seconds: seconds)
    }
}
