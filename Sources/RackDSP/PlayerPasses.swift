/// Where the passes of a looping file end in the ring that streams it, so that the loop flag can
/// act on what is heard rather than on what the reader has decoded ahead.
///
/// The reader of a looping stream runs through the file again and again (seamlessly, one
/// concatenated timeline: pass k starts at file frame k·`fileFrames`), up to a ring length
/// ahead of the player. The player on the render thread meets each pass end at a known ring
/// frame and decides there: loop on, play on into the next pass; loop off, stop (the end of
/// the pass being heard). Turning loop on while stopped there plays on from the next pass's
/// first frame, which the reader has already decoded.
///
/// Frame indices are at the engine rate; the mapping file frame → engine frame is
/// `round(i · targetRate / sourceRate)`, the reader's own (`ResamplingReader`).
public struct PlayerPasses: Sendable, Equatable {
    /// Length of the file in its own frames (≥ 1).
    public let fileFrames: Int64
    /// The file's sample rate, in Hz.
    public let sourceRate: Double
    /// The engine's sample rate, in Hz.
    public let targetRate: Double
    /// Engine-rate index, in the concatenated timeline, of the ring's first frame (the start
    /// position of the stream: `round(startFileFrame · targetRate / sourceRate)`).
    public let origin: Int64

    public init(fileFrames: Int64, sourceRate: Double, targetRate: Double, startFileFrame: Int64) {
        self.fileFrames = max(1, fileFrames)
        self.sourceRate = sourceRate
        self.targetRate = targetRate
        origin = Self.engineIndex(fileIndex: startFileFrame, sourceRate: sourceRate, targetRate: targetRate)
    }

    /// The engine-rate index of concatenated file index `i` (the reader's rounding).
    /// - Realtime: safe
    @_noLocks
    public static func engineIndex(fileIndex i: Int64, sourceRate: Double, targetRate: Double) -> Int64 {
        // `.rounded()` (half away from zero) for x ≥ 0, without the rounding-rule type: the
        // difference to the floor is exact below 2^52.
        let x = Double(i) * targetRate / sourceRate
        let f = RackMath.floor(x)
        return Int64(x - f >= 0.5 ? f + 1 : f)
    }

    /// The ring frame at which pass `k` ends (k ≥ 1; pass 1 is the one the stream starts in).
    /// Never below 0 for k ≥ 1 (the start lies within the file).
    /// - Realtime: safe
    @_noLocks
    public func end(ofPass k: Int64) -> Int64 {
        Self.engineIndex(fileIndex: k &* fileFrames, sourceRate: sourceRate, targetRate: targetRate) &- origin
    }

    /// Where ring frame `frame` lies in the file, in seconds: the position heard after the
    /// player took `frame` frames. At a pass end, `stoppedAtEnd` says whether the player
    /// stands there (loop off: the file's duration) or plays on (the next pass's start).
    public func fileSeconds(afterFrames frame: Int64, stoppedAtEnd: Bool) -> Double {
        let duration = Double(fileFrames) / sourceRate
        // The pass holding `frame`: estimate, then correct against the exact ends.
        let perPass = Double(fileFrames) * targetRate / sourceRate
        var k = max(1, Int64(RackMath.floor(Double(frame + origin) / perPass)) + 1)
        while k > 1 && end(ofPass: k - 1) > frame { k -= 1 }
        while end(ofPass: k) <= frame { k += 1 }
        let passStart = end(ofPass: k - 1)   // for k = 1: −origin
        if frame == passStart && k > 1 && stoppedAtEnd { return duration }
        let t = Double(frame - passStart) / targetRate
        return min(max(0, t), duration)
    }
}
