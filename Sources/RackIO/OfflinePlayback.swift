import RackDSP
import RackEngine
import RackFiles

/// What the offline player plays, as an automation says it (the live player's rules): from the
/// position a seek at time 0 gives, and, once the automation turns looping on, on past the end
/// of the file the way `rack run` loops it (`PlayerPasses`: the reader runs through the file
/// seamlessly, the player decides at each pass end by the loop flag of that moment).
///
/// A render that loops lasts until the automation's last change is complete (at least one pass
/// of the file); there the player stops (a 5 ms fade, as when a rack stops) and `--tail` adds
/// the reverb's tail. A render that never loops plays the file once, as before.
struct OfflinePlayback {
    /// True when the automation turns looping on at some time.
    let loops: Bool
    /// True when the automation places the player with a seek at time 0, as a recorded live
    /// session starts: the player fades in as that live start did. A render of the file from
    /// its start plays its first frame at full level (the file as it is).
    let fadesIn: Bool
    /// The frames the render lasts before its tail.
    let playFrames: Int64
    /// The ring the reader fills and the player reads.
    let ring: StereoRing
    /// The loop flag's changes at the render rate, in order.
    private let loopChanges: [(frame: Int64, on: Bool)]
    private var nextChange = 0

    /// Seeks `reader` to the automation's starting position and makes it loop when the
    /// automation does; the ring holds `ringFrames` at least.
    init(reader: ResamplingReader, automation: Automation?, rate: Double, ringFrames: Int) throws(AudioFileError) {
        let start = min(max(0, automation?.startSeconds ?? 0), reader.info.durationSeconds)
        if start > 0 { try reader.seek(seconds: start) }
        // The file frame the reader starts at (`ResamplingReader.seek`'s rounding), as `PlayerStream`.
        let startFrame = min(max(Int64((start * reader.info.sampleRate).rounded()), 0), reader.info.frames)
        let passes = PlayerPasses(fileFrames: reader.info.frames, sourceRate: reader.info.sampleRate,
                                  targetRate: rate, startFileFrame: startFrame)
        loops = automation?.loops ?? false
        fadesIn = automation?.events.contains { e in
            guard e.time == 0, case .seek = e.action else { return false }
            return true
        } ?? false
        if loops {
            reader.loop = true
            ring = StereoRing(minimumCapacity: ringFrames, passes: passes)
            ring.isLooping = false
            let end = Int64(((automation?.endSeconds ?? 0) * rate).rounded())
            playFrames = max(passes.end(ofPass: 1), end)
        } else {
            ring = StereoRing(minimumCapacity: ringFrames)
            playFrames = reader.framesAtTargetRate - passes.origin
        }
        loopChanges = (automation?.loopChanges ?? []).map { (Int64(($0.time * rate).rounded()), $0.on) }
    }

    /// The frames to render from `rendered` on, at most `frames`: a block ends where the loop
    /// flag changes, so that the player meets each pass end with the flag of that moment.
    /// Applies the changes due at `rendered`.
    mutating func nextBlock(at rendered: Int64, frames: Int) -> Int {
        while nextChange < loopChanges.count && loopChanges[nextChange].frame <= rendered {
            if loops { ring.isLooping = loopChanges[nextChange].on }
            nextChange += 1
        }
        guard nextChange < loopChanges.count else { return frames }
        return Int(min(Int64(frames), loopChanges[nextChange].frame - rendered))
    }

    /// The stop at the end of a looping render (nil when the file plays once and ends by itself).
    var endEvent: EngineEvent? { loops ? EngineEvent(sampleTime: playFrames, .stop) : nil }
}
