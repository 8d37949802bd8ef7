import Foundation
import RackEngine
import RackFiles

/// The demo loop rack plays when no file is given: synthesised by rack itself (no samples are
/// shipped). Four bars of plucked strings (Karplus–Strong) over a soft kick, 100 BPM, stereo.
public enum DemoLoop {
    /// Writes the loop to `path` (wav, float) at `sampleRate` unless it is already there.
    /// Returns the path.
    @discardableResult
    public static func write(to path: String, sampleRate: Double = 48_000) throws -> String {
        if FileManager.default.fileExists(atPath: path) { return path }
        let dir = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let (l, r) = synthesize(sampleRate: sampleRate)
        let w = try AudioFileWriter(path: path, sampleRate: sampleRate, format: .float)
        try l.withUnsafeBufferPointer { lp in try r.withUnsafeBufferPointer { rp in
            try w.write(left: lp.baseAddress!, right: rp.baseAddress!, frames: l.count)
        }}
        try w.commit()
        return path
    }

    /// The standard place: `demo-loop.wav` in rack's cache directory (`UserDirectories`:
    /// `$XDG_CACHE_HOME/rack` or `~/.cache/rack`); an error (73) when the environment names no
    /// home (`HOME=""` would write under the filesystem root).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) throws(RackError) -> String {
        try UserDirectories.require(.cache, for: "the demo loop", environment: environment) + "/demo-loop.wav"
    }

    /// The loop's samples.
    public static func synthesize(sampleRate rate: Double) -> ([Float], [Float]) {
        let bpm = 100.0
        let beat = 60 / bpm
        let frames = Int(16 * beat * rate)
        var left = [Float](repeating: 0, count: frames)
        var right = [Float](repeating: 0, count: frames)
        // A minor-key arpeggio, MIDI notes, one per eighth note.
        let notes = [57, 60, 64, 69, 64, 60, 57, 60, 53, 57, 60, 65, 60, 57, 53, 57,
                     55, 59, 62, 67, 62, 59, 55, 59, 52, 56, 59, 64, 59, 56, 52, 56]
        var seed: UInt32 = 12345
        func random() -> Float {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return Float(seed >> 8) / Float(1 << 24) * 2 - 1
        }
        for (i, note) in notes.enumerated() {
            let start = Int(Double(i) * beat / 2 * rate)
            let f = 440 * pow(2, Double(note - 69) / 12)
            let period = max(2, Int(rate / f))
            var line = (0..<period).map { _ in random() * 0.5 }
            let pan = Float(0.3 + 0.4 * Double(i % 4) / 3)
            let length = min(frames - start, Int(1.2 * rate))
            var k = 0
            for n in 0..<length {
                let next = (k + 1) % period
                let y = line[k]
                line[k] = 0.996 * 0.5 * (line[k] + line[next])
                k = next
                left[start + n] += y * (1 - pan) * 0.6
                right[start + n] += y * pan * 0.6
            }
        }
        // Kick on every beat: a falling sine with a quick decay.
        for b in 0..<16 {
            let start = Int(Double(b) * beat * rate)
            let length = min(frames - start, Int(0.35 * rate))
            var phase = 0.0
            for n in 0..<length {
                let t = Double(n) / rate
                phase += 2 * .pi * (45 + 90 * exp(-t * 30)) / rate
                let y = Float(sin(phase) * exp(-t * 9) * 0.5)
                left[start + n] += y
                right[start + n] += y
            }
        }
        return (left, right)
    }
}
