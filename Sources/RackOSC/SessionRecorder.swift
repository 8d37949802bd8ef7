import Foundation
import RackEngine

/// `rack run --record FILE`: every change the render thread applied, as automation lines at
/// the sample it took effect. The file is rewritten whole (atomically) at most every
/// `ControllerTuning.recordFlushSeconds` while changes come in, and on exit, so it is always
/// a complete automation file that `rack check` and `rack render` accept.
final class SessionRecorder {
    /// The file; nil when not recording.
    let path: String?
    private var lines: [String] = []
    private var isDirty = false
    private var lastFlush = 0.0

    init(path: String?) { self.path = path }

    /// Adds one automation line (ignored when not recording).
    func record(_ line: String) {
        guard path != nil else { return }
        lines.append(line)
        isDirty = true
    }

    /// Writes the file if lines came in and the last write is older than the flush interval.
    func flushIfDue(now: Double, sampleRate: Double) throws(RackError) {
        guard isDirty && now - lastFlush > ControllerTuning.recordFlushSeconds else { return }
        lastFlush = now
        try flush(sampleRate: sampleRate)
    }

    /// Writes the recording so far, if there is anything new (or no file yet).
    func flush(sampleRate: Double) throws(RackError) {
        guard let path, isDirty || !FileManager.default.fileExists(atPath: path) else { return }
        let header = "# recorded by rack run at \(Int(sampleRate)) Hz: TIME ADDRESS ARGS...\n"
        let text = header + lines.map { $0 + "\n" }.joined()
        let dir = (path as NSString).deletingLastPathComponent
        try atomicWrite(Array(text.utf8), to: path, directory: dir.isEmpty ? "." : dir)
        isDirty = false
    }
}
