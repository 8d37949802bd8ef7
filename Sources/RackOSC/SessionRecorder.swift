import Foundation
import RackPathText
import RackEngine
import RackFiles

/// `rack run --record FILE`: every change the render thread applied, as automation lines at
/// the sample it took effect. The file is an append-only journal: each line is appended with
/// one `write` as its change comes back from the render thread (nothing is rewritten), so a
/// crash or `kill -9` leaves a valid automation file up to the last whole line; it is
/// fdatasync'ed at most every `ControllerTuning.recordFlushSeconds` and at exit.
///
/// Times never go backwards: when the driver replaces the engine (a server back at another
/// rate, whose sample clock starts again at 0), the new engine's sample 0 is placed where the
/// old engine had got to, which is where the player goes on from.
public final class SessionRecorder {
    /// The file; nil when not recording.
    let path: String?
    private var fd: Int32 = -1
    /// Bytes of whole lines in the file: a failed append is cut back to this.
    private var goodLength: off_t = 0
    /// Lines not yet in the file (only after a failed write; retried at the next flush).
    private var pending: [UInt8] = []
    /// A write problem not yet reported (reported once, by the next flush).
    private var failure: RackError?
    private var failureReported = false
    private var unsynced = false
    private var lastSync = 0.0
    /// When `flushIfDue` last ran (seconds on the controller's clock).
    private var lastRetry = 0.0
    /// The last write failed: its lines wait for a retry.
    private var writeFailed = false

    /// The engine whose samples the recent lines count, and where its sample 0 lies in the
    /// file (seconds).
    private var engineID: ObjectIdentifier?
    private var engineRate = 0.0
    private var originSeconds = 0.0
    /// How far the current engine is known to have rendered, in file seconds.
    private var reachedSeconds = 0.0
    /// Time of the last line written, in file seconds.
    private var lastLineSeconds = 0.0

    /// Starts the journal at `path` (created or emptied), or does nothing when nil. A file that
    /// cannot be created is reported by the first flush; `SessionRecorder.prepare` lets the
    /// command line refuse it at start instead.
    init(path: String?) {
        self.path = path
        guard let path else { return }
        do {
            fd = try Self.open(path)
            append("# recorded by rack run: TIME ADDRESS ARGS..., times in seconds from the start\n")
        } catch {
            failure = error
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Checks at start that `path` can be written (creates or empties it): a 73 error otherwise.
    public static func prepare(path: String) throws(RackError) {
        let fd = try open(path)
        close(fd)
    }

    private static func open(_ path: String) throws(RackError) -> Int32 {
        let fd = PathText.withCPath(path) { Foundation.open($0, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644) }
        guard fd >= 0 else {
            let reason = errno
            let directory = (path as NSString).deletingLastPathComponent
            var isDirectory: ObjCBool = false
            if reason == ENOENT, !directory.isEmpty,
               !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue {
                throw RackError(.cannotCreate, "cannot create the recording '\(PathText.display(path))': there is no directory '\(PathText.display(directory))'")
            }
            throw RackError(.cannotCreate, "cannot create the recording '\(PathText.display(path))': \(String(cString: strerror(reason)))")
        }
        return fd
    }

    // MARK: - Lines

    /// A record of the change stream, as the recording keeps it: every change `engine`
    /// applied, at its echo's sample. A preset recall is a comment naming it followed by the
    /// values it set, each with the recall's ramp (so the file replays where the preset does
    /// not exist); the engine taking up the state after a rejoin is written as a change at
    /// that sample over the default ramp; a change made while no server ran has no sample and
    /// is written when the engine takes it up.
    func record(_ r: ChangeRecord, engine: Engine) {
        guard path != nil, let echo = r.echo else { return }
        switch r.change {
        case let .preset(name, rampFrames):
            recordPreset(name: name, rampFrames: rampFrames, at: echo, engine: engine)
        case let .parameter(id, value) where r.source == .rejoin:
            record(AppliedEvent(.set(id, value, ramp: .standard), sampleTime: echo.sampleTime), engine: engine)
        case .parameter, .transport:
            record(echo, engine: engine)
        }
    }

    /// Appends the line for an applied event of `engine` (parameter, play, stop).
    func record(_ e: AppliedEvent, engine: Engine) {
        guard path != nil else { return }
        let seconds = fileSeconds(e.sampleTime, engine: engine)
        guard let line = AutomationWriter.line(for: e.action, atSeconds: seconds, sampleRate: engine.sampleRate) else { return }
        append(line + "\n")
    }

    /// Appends the state the recording starts from, at time 0 (`AutomationWriter.startingLines`),
    /// with the file playing named in a comment (`rack render FILE OUT --automation RECORDING`
    /// replays it).
    func recordStart(state: RackState, preset: String, file: String?, loop: Bool, positionSeconds: Double) {
        guard path != nil else { return }
        var text = file.map { "# file: \(Automation.quote($0)) (replay: rack render FILE OUT.wav --automation THIS)\n" } ?? ""
        text += "# the state at the start:\n"
        for line in AutomationWriter.startingLines(state: state, preset: preset, loop: loop, positionSeconds: positionSeconds) {
            text += line + "\n"
        }
        append(text)
    }

    /// Appends a change of the loop flag, at the sample `engine` has rendered up to (the flag
    /// acts at the next end of the file the player reaches).
    func recordLoop(_ on: Bool, engine: Engine?) {
        guard path != nil else { return }
        observe(engine)
        let t = max(reachedSeconds, lastLineSeconds)
        lastLineSeconds = t
        append(AutomationWriter.loopLine(on, atSeconds: t) + "\n")
    }

    /// Appends the line that ends the recording where the rack stopped (at exit).
    func recordEnd(engine: Engine?) {
        guard path != nil else { return }
        observe(engine)
        let t = max(reachedSeconds, lastLineSeconds)
        lastLineSeconds = t
        append(AutomationWriter.endLine(atSeconds: t) + "\n")
    }

    /// Appends the comment for a preset recall that took effect at `e.sampleTime` in `engine`
    /// (its values follow as their own records).
    func recordPreset(name: String, rampFrames: Int64, at e: AppliedEvent, engine: Engine) {
        guard path != nil else { return }
        let seconds = fileSeconds(e.sampleTime, engine: engine)
        append(AutomationWriter.presetComment(name: name, rampFrames: rampFrames, atSeconds: seconds, sampleRate: engine.sampleRate) + "\n")
    }

    /// File seconds of `sample` in `engine`; never before the last line written.
    private func fileSeconds(_ sample: Int64, engine: Engine) -> Double {
        observe(engine)
        let t = max(originSeconds + Double(sample) / engine.sampleRate, lastLineSeconds)
        lastLineSeconds = t
        return t
    }

    /// Notes how far `engine` has rendered; a different engine than before starts where the
    /// previous one had got to (a comment line says so).
    func observe(_ engine: Engine?) {
        guard path != nil, let engine else { return }
        let id = ObjectIdentifier(engine)
        if id != engineID {
            if engineID != nil {
                originSeconds = max(reachedSeconds, lastLineSeconds)
                append("# \(AutomationWriter.time(seconds: originSeconds)): the JACK server is back at \(Int(engine.sampleRate)) Hz (was \(Int(engineRate)) Hz)\n")
            } else {
                // The rate it is heard at: `rack render` renders the recording at it.
                append("\(Automation.rateKeyword) \(Int(engine.sampleRate)) # the engine's rate, which rack render renders at\n")
            }
            engineID = id
            engineRate = engine.sampleRate
        }
        let rendered = originSeconds + Double(engine.monitor.get(.sampleTime)) / engine.sampleRate
        reachedSeconds = max(reachedSeconds, rendered)
    }

    /// One write of whole lines; on failure the file is cut back to its last whole line and
    /// the text waits for the next flush.
    private func append(_ text: String) {
        pending += Array(text.utf8)
        writePending()
    }

    private func writePending() {
        guard fd >= 0, !pending.isEmpty else { return }
        var written = 0
        let ok = pending.withUnsafeBytes { buf -> Bool in
            while written < buf.count {
                let n = write(fd, buf.baseAddress! + written, buf.count - written)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                written += n
            }
            return true
        }
        writeFailed = !ok
        if ok {
            goodLength += off_t(written)
            pending.removeAll(keepingCapacity: true)
            unsynced = true
        } else {
            let reason = String(cString: strerror(errno))
            if written > 0 { _ = ftruncate(fd, goodLength) }
            if failure == nil && !failureReported {
                failure = RackError(.ioError, "cannot append to the recording '\(path ?? "")': \(reason) (retrying)")
            }
        }
    }

    // MARK: - Flushing

    /// Called from the control loop: notes the engine's progress, retries lines a failed write
    /// left over, fdatasyncs when the last sync is older than the flush interval, and reports
    /// a write problem once.
    func flushIfDue(now: Double, engine: Engine?) throws(RackError) {
        observe(engine)
        lastRetry = now
        writePending()
        if unsynced && now - lastSync >= ControllerTuning.recordFlushSeconds {
            lastSync = now
            sync()
        }
        try reportFailure()
    }

    /// When `flushIfDue` next has work (seconds on the controller's clock): lines to write at
    /// once (lines a failed write left over: a retry every `recordRetrySeconds`), else the sync
    /// of what was written, `ControllerTuning.recordFlushSeconds` after the last one; nil
    /// without a recording or with everything synced.
    var nextFlush: Double? {
        guard path != nil else { return nil }
        if !pending.isEmpty { return writeFailed ? lastRetry + Self.recordRetrySeconds : lastRetry }
        return unsynced ? lastSync + ControllerTuning.recordFlushSeconds : nil
    }

    /// How often, in seconds, lines a failed write left over are written again (a full disk
    /// that frees up loses nothing meanwhile; the problem is said once).
    static let recordRetrySeconds = 1.0

    /// At exit: everything written and synced. Lines that still cannot be written (a full
    /// disk) are a loss: thrown whether or not the write problem was reported before, so
    /// `rack run` exits non-zero rather than 0 with an incomplete file.
    func flush(engine: Engine?) throws(RackError) {
        observe(engine)
        writePending()
        if unsynced { sync() }
        if let loss = lossAtExit() { throw loss }
        try reportFailure()
    }

    /// The error for lines never written, when there are some.
    private func lossAtExit() -> RackError? {
        guard let path, !pending.isEmpty else { return nil }
        let lines = pending.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let reason = failure?.message ?? "cannot append to the recording '\(path)'"
        failure = nil
        failureReported = true
        return RackError(.ioError, "the recording '\(path)' is incomplete: its last \(lines) lines could not be written (\(reason))")
    }

    private func sync() {
        guard fd >= 0 else { return }
        _ = fdatasync(fd)
        unsynced = false
    }

    private func reportFailure() throws(RackError) {
        guard let f = failure else { return }
        failure = nil
        failureReported = true
        throw f
    }
}
