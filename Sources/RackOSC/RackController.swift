import Foundation
import RackDSP
import RackEngine
import RackIO

/// What the controller needs from the driver it runs beside (the JACK client).
public protocol RackHost: AnyObject {
    /// The engine the driver renders (replaced if the server comes back at another rate).
    var engine: Engine? { get }
    var bufferSize: Int { get }
    var xruns: Int { get }
    var dspLoadPercent: Double { get }
    /// "running" or "disconnected".
    var stateName: String { get }
    /// The engine sample that will be rendered `secondsFromNow` from now; nil: as soon as possible.
    func engineSample(secondsFromNow: Double) -> Int64?
    /// DSP time per cycle since the last call.
    func takeCycleStats() -> CycleStats
}

/// The OSC address space of the contract, on the control thread. Every message is checked
/// here (types, NaN/Inf, ranges, names) before anything reaches the render thread, which
/// only ever sees validated `EngineEvent`s through the lock-free queue. All state lives on
/// this one thread: no locks.
public final class RackController {
    /// The OSC namespace version (semantic versioning), `/rack/version`.
    public static let namespaceVersion = "1.0.0"

    public let socket: UDPSocket
    public let presets: PresetStore
    private let host: RackHost
    private let allow: [AddressRange]
    /// Targets as last set (what get/dump/presets report): the control side's mirror.
    public private(set) var targets: RackState
    private var lastPreset = ""
    private var subscribers: [OSCEndpoint] = []
    private var meterSubscribers: [OSCEndpoint] = []
    private var lastMeterTime = 0.0
    private var lastMeterSums = (left: 0.0, right: 0.0, frames: 0)
    private var markerNames: [Int: (name: String, rampFrames: Int64)] = [:]
    private var nextMarker = 1
    private var suppressEchoes = 0
    /// Lines for the user.
    public var log: (String) -> Void = { _ in }
    /// The session manager, when rack runs under NSM.
    public var nsm: NSMClient?

    // Player
    private var stream: PlayerStream?
    private var retired: [PlayerStream] = []
    /// A load or seek asked for while the previous swap was still crossfading: only the latest
    /// is kept, and it runs once the player has let go of the old ring. So the render thread
    /// never sees more than one swap in flight, however fast seeks arrive.
    private var deferredLoad: (path: String, startSeconds: Double, from: OSCEndpoint?, address: String)?
    /// The player's position as of the last loop pass (read before a driver swaps engines).
    private var lastPlayerSeconds = 0.0
    public private(set) var loop = true
    private var playing = true

    // Recording
    private var recordPath: String?
    private var recordLines: [String] = []
    private var recordDirty = false
    private var lastRecordFlush = 0.0

    // Error replies are rate-limited: a flood of bad packets cannot be amplified.
    private var errorBudget = ControllerTuning.errorRepliesPerSecond
    private var errorBudgetTime = 0.0
    public private(set) var droppedErrorReplies = 0
    public private(set) var packetsReceived = 0

    public init(socket: UDPSocket, host: RackHost, presets: PresetStore, initial: RackState,
                initialPreset: String = "", allow: [AddressRange] = [], recordPath: String? = nil) {
        self.socket = socket
        self.host = host
        self.presets = presets
        targets = initial
        lastPreset = initialPreset
        self.allow = allow
        self.recordPath = recordPath
    }

    private var engine: Engine? { host.engine }
    private var sampleRate: Double { engine?.sampleRate ?? 48_000 }

    // MARK: - The loop

    /// Serves until `shouldStop` says so: receives packets, applies them, and between packets
    /// relays what the render thread applied (subscribers, recording), frees released rings,
    /// and runs `housekeeping` (the driver's reconnection).
    public func serve(shouldStop: () -> Bool, housekeeping: (Double) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !shouldStop() {
            let now = monotonicSeconds()
            buffer.withUnsafeMutableBytes { buf in
                // Take every waiting datagram, then do the periodic work.
                var timeout: Int32 = ControllerTuning.pollMilliseconds
                while let (n, from) = socket.receive(into: buf, timeoutMilliseconds: timeout) {
                    timeout = 0
                    handle(datagram: UnsafeRawBufferPointer(rebasing: buf[0..<n]), from: from)
                }
            }
            drainApplied()
            collectStreams()
            lastPlayerSeconds = playerSeconds
            if now - lastMeterTime >= 1 / ControllerTuning.meterHz { sendMeters(); lastMeterTime = now }
            housekeeping(now)
            if recordDirty && now - lastRecordFlush > 2 { flushRecording(); lastRecordFlush = now }
        }
        drainApplied()
        flushRecording()
    }

    /// One pass of the loop's periodic work without waiting for packets (tests, and drivers
    /// that own their own loop).
    public func serveOnce() {
        drainApplied()
        collectStreams()
    }

    /// The last events the render thread reported as applied (newest last, at most 64).
    public private(set) var lastApplied: [EngineEvent] = []

    /// Stops the player threads (at exit).
    public func shutDown() {
        stream?.stop()
        for s in retired { s.stop() }
    }

    // MARK: - Packets

    public func handle(datagram: UnsafeRawBufferPointer, from: OSCEndpoint) {
        packetsReceived += 1
        if !allow.isEmpty && !allow.contains(where: { $0.contains(from) }) && from != nsm?.server { return }
        let messages: [(OSCMessage, OSCTimeTag)]
        do {
            messages = try OSCPacket.decode(datagram)
        } catch {
            replyError(to: from, address: "", reason: error.reason)
            return
        }
        for (m, tag) in messages { handle(m, timeTag: tag, from: from) }
    }

    /// Applies one message.
    public func handle(_ m: OSCMessage, timeTag: OSCTimeTag, from: OSCEndpoint) {
        let a = m.address
        let args = m.arguments
        func fail(_ reason: String) { replyError(to: from, address: a, reason: reason) }
        let parts = a.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count >= 3, parts[0] == "", parts[1] == "rack", let spec = Parameters.named(String(parts[2])) {
            if parts.count == 3 { return setParameter(spec, args, normalized: false, timeTag: timeTag, from: from, address: a) }
            if parts.count == 4 && parts[3] == "norm" && spec.taper != .choice {
                return setParameter(spec, args, normalized: true, timeTag: timeTag, from: from, address: a)
            }
        }
        if let nsm, from == nsm.server {
            switch a {
            case "/nsm/client/save":
                return nsm.save(SessionState(state: targets, playerPath: playerPath, playerSeconds: playerSeconds), socket: socket)
            case "/reply", "/error", "/nsm/client/session_is_loaded", "/nsm/client/open":
                return   // acknowledgements; a second open (switch) is not a declared capability
            default: break
            }
        }
        switch a {
        case "/ping":
            reply(OSCMessage("/pong"), to: from)
        case "/rack/preset":
            recallPreset(args, timeTag: timeTag, from: from)
        case "/rack/preset/save", "/rack/preset/delete":
            guard args.count == 1, let name = args[0].string else { return fail("expects one string: the preset name") }
            do {
                if a.hasSuffix("save") { try presets.save(name: name, state: targets) } else { try presets.delete(name: name) }
            } catch {
                fail(error.message.replacingOccurrences(of: "rack: ", with: ""))
            }
        case "/rack/preset/list":
            reply(OSCMessage("/rack/preset/list", presets.all.map { .string($0.name) }), to: from)
        case "/rack/get":
            guard args.count == 1, let name = args[0].string else { return fail("expects one string: a parameter name") }
            guard let spec = Parameters.named(name) else { return fail("unknown parameter '\(name)'") }
            reply(valueMessage(spec), to: from)
        case "/rack/dump":
            for spec in Parameters.all { reply(valueMessage(spec), to: from) }
            reply(OSCMessage("/rack/preset", [.string(lastPreset)]), to: from)
        case "/rack/subscribe", "/rack/unsubscribe":
            guard let target = replyTarget(args, from: from, fail: fail) else { return }
            subscribers.removeAll { $0 == target }
            if a == "/rack/unsubscribe" { meterSubscribers.removeAll { $0 == target } }
            if a == "/rack/subscribe" {
                guard subscribers.count < ControllerTuning.maximumSubscribers else { return fail("too many subscribers") }
                subscribers.append(target)
            }
        case "/rack/meter":
            guard let target = replyTarget(args, from: from, fail: fail) else { return }
            if !meterSubscribers.contains(target) {
                guard meterSubscribers.count < ControllerTuning.maximumSubscribers else { return fail("too many meter subscribers") }
                meterSubscribers.append(target)
            }
        case "/rack/status":
            guard args.isEmpty else { return fail("takes no arguments") }
            reply(OSCMessage("/rack/status", [
                .int(Int32(sampleRate)), .int(Int32(host.bufferSize)), .int(Int32(clamping: host.xruns)),
                .float(Float(host.dspLoadPercent)), .float(Float(playerSeconds)), .string(host.stateName),
            ]), to: from)
        case "/rack/stats":
            let s = host.takeCycleStats()
            let period = Double(host.bufferSize) / sampleRate * 1e6
            reply(OSCMessage("/rack/stats", [
                .int(Int32(clamping: s.cycles)), .float(Float(s.medianMicroseconds)), .float(Float(s.p99Microseconds)),
                .float(Float(s.maxMicroseconds)), .float(Float(period)), .int(Int32(clamping: host.xruns)),
            ]), to: from)
        case "/rack/params":
            for spec in Parameters.all {
                reply(OSCMessage("/rack/params", [
                    .string(spec.name), .string(spec.unit), .float(Float(spec.minimum)), .float(Float(spec.maximum)),
                    .float(Float(spec.defaultValue)), .string(spec.taper.rawValue),
                ]), to: from)
            }
        case "/rack/version":
            reply(OSCMessage("/rack/version", [.string(Self.namespaceVersion)]), to: from)
        case "/rack/player/load":
            guard args.count == 1, let path = args[0].string else { return fail("expects one string: a file path") }
            loadPlayer(path: path, startSeconds: 0, from: from, address: a)
        case "/rack/player/play", "/rack/player/stop":
            guard args.isEmpty else { return fail("takes no arguments") }
            playing = a.hasSuffix("play")
            post(EngineEvent(sampleTime: sample(for: timeTag), kind: playing ? .play : .stop), from: from, address: a)
        case "/rack/player/loop":
            guard args.count == 1, let v = args[0].number, v == 0 || v == 1 else { return fail("expects 0 or 1") }
            loop = v == 1
            stream?.loop = loop
        case "/rack/player/seek":
            guard args.count == 1, let s = args[0].number else { return fail("expects seconds") }
            guard s.isFinite else { return fail("seconds must be finite") }
            guard let current = stream else { return fail("no file is loaded") }
            // A seek goes to the newest file asked for (a load may still be waiting its turn).
            let path = deferredLoad?.path ?? current.path
            let duration = path == current.path ? current.durationSeconds : .infinity
            if s < 0 || s > duration {
                fail("seek \(formatNumber(s)) s clamped to \(formatNumber(min(max(s, 0), duration))) s")
            }
            loadPlayer(path: path, startSeconds: min(max(s, 0), duration), from: from, address: a)
        default:
            fail("unknown address")
        }
    }

    /// Where a subscription sends to: the sender, on the port given as the optional argument.
    /// Nil (after reporting) when the argument is not a port.
    private func replyTarget(_ args: [OSCValue], from: OSCEndpoint, fail: (String) -> Void) -> OSCEndpoint? {
        var target = from
        if args.count == 1 {
            guard let p = args[0].number, p >= 1, p <= 65535, p == p.rounded() else {
                fail("port must be an integer 1…65535")
                return nil
            }
            target.port = UInt16(p)
        } else if !args.isEmpty {
            fail("expects an optional integer port")
            return nil
        }
        return target
    }

    private func valueMessage(_ spec: ParameterSpec) -> OSCMessage {
        let v = targets[spec.id]
        return OSCMessage(spec.address, [spec.taper == .choice ? .string(spec.format(v)) : .float(Float(v))])
    }

    /// The engine sample for a timetag: immediately unless it lies in the future.
    private func sample(for tag: OSCTimeTag) -> Int64 {
        if tag.isImmediate { return EngineEvent.immediately }
        let ahead = tag.seconds(since: .now())
        guard ahead > 0 else { return EngineEvent.immediately }
        return host.engineSample(secondsFromNow: ahead) ?? EngineEvent.immediately
    }

    /// Parses an optional ramp-time argument: 0 (the default ramp) when absent.
    private func rampFrames(_ args: [OSCValue], at index: Int) -> Result<Int64, Reason> {
        guard args.count > index else { return .success(0) }
        guard let r = args[index].number else { return .failure(Reason("ramp time must be a number of seconds")) }
        if let problem = ParameterSpec.rampProblem(r) { return .failure(Reason(problem)) }
        return .success(Int64((r * sampleRate).rounded()))
    }

    private func setParameter(_ spec: ParameterSpec, _ args: [OSCValue], normalized: Bool, timeTag: OSCTimeTag,
                              from: OSCEndpoint, address: String) {
        func fail(_ reason: String) { replyError(to: from, address: address, reason: reason) }
        guard args.count == 1 || args.count == 2 else {
            return fail(spec.taper == .choice ? "expects a room name and an optional crossfade time" : "expects a value and an optional ramp time")
        }
        let ramp: Int64
        switch rampFrames(args, at: 1) {
        case let .success(r): ramp = r
        case let .failure(reason): return fail(reason.text)
        }
        var value: Double
        if spec.taper == .choice {
            if let name = args[0].string {
                guard let i = spec.choices.firstIndex(of: name) else {
                    return fail("unknown \(spec.name) '\(name)' (one of \(spec.choices.joined(separator: ", ")))")
                }
                value = Double(i)
            } else {
                return fail("expects a room name (s)")
            }
        } else {
            guard let raw = args[0].number else { return fail("expects a number (f or i), got \(args[0])") }
            guard raw.isFinite else { return fail("value must be finite") }
            let accepted = spec.accept(raw, normalized: normalized)
            value = accepted.value
            if let clamped = accepted.clamped {
                fail(normalized ? "normalized value clamped to \(formatNumber(clamped))" : "clamped to \(formatNumber(clamped))")
            }
        }
        var event = EngineEvent(sampleTime: sample(for: timeTag), kind: .parameter, parameter: spec.id, value: value, rampFrames: ramp)
        event.isScheduled = event.sampleTime != EngineEvent.immediately
        // An immediate change is the target from now on; a scheduled one becomes the target
        // when the render thread applies it (its echo), so get/dump never run ahead of the sound.
        if post(event, from: from, address: address) && !event.isScheduled {
            targets[spec.id] = value
        }
    }

    private func recallPreset(_ args: [OSCValue], timeTag: OSCTimeTag, from: OSCEndpoint) {
        func fail(_ reason: String) { replyError(to: from, address: "/rack/preset", reason: reason) }
        guard args.count == 1 || args.count == 2 else { return fail("expects a preset name or index and an optional ramp time") }
        let preset: Preset?
        if let name = args[0].string {
            preset = presets.preset(named: name)
        } else if let n = args[0].number, n.isFinite, n == n.rounded(), abs(n) < 1e6 {
            preset = presets.preset(index: Int(n))
        } else {
            return fail("expects a preset name or index")
        }
        guard let preset else { return fail("unknown preset \(args[0])") }
        let ramp: Int64
        switch rampFrames(args, at: 1) {
        case let .success(r): ramp = r
        case let .failure(reason): return fail(reason.text)
        }
        let t = sample(for: timeTag)
        let marker = nextMarker
        nextMarker += 1
        markerNames[marker] = (preset.name, ramp)
        var events = [EngineEvent(sampleTime: t, kind: .marker, value: Double(marker))]
        events += preset.state.events(at: t, rampFrames: ramp)
        let scheduled = t != EngineEvent.immediately
        for i in events.indices { events[i].isScheduled = scheduled }
        // All or nothing: a recall is never half-applied because the queue filled up.
        guard let engine, engine.queueSpace >= events.count else { return fail("busy: the render thread's queue is full") }
        for e in events { _ = engine.post(e) }
        if !scheduled {
            targets = preset.state
            lastPreset = preset.name
        }
    }

    @discardableResult
    private func post(_ event: EngineEvent, from: OSCEndpoint, address: String) -> Bool {
        guard let engine, engine.post(event) else {
            replyError(to: from, address: address, reason: "busy: the render thread's queue is full")
            return false
        }
        return true
    }

    // MARK: - Player

    /// Opens `path` (the previous file keeps playing if this fails) and hands its ring to the
    /// engine, which crossfades to it.
    public func loadPlayer(path: String, startSeconds: Double, from: OSCEndpoint?, address: String) {
        guard let engine else { return }
        if !retired.isEmpty {
            deferredLoad = (path, startSeconds, from, address)
            return
        }
        do {
            let s = try PlayerStream(path: path, sampleRate: engine.sampleRate, startSeconds: startSeconds, loop: loop)
            guard engine.post(EngineEvent(sampleTime: EngineEvent.immediately, kind: .attachPlayer, ring: s.ring)) else {
                if let from { replyError(to: from, address: address, reason: "busy: the render thread's queue is full") }
                return
            }
            if let old = stream { retired.append(old) }
            stream = s
            if playing { _ = engine.post(EngineEvent(sampleTime: EngineEvent.immediately, kind: .play)) }
        } catch {
            let reason = error.description.replacingOccurrences(of: "rack: ", with: "")
            if let from { replyError(to: from, address: address, reason: reason) } else { log("rack: \(reason)") }
        }
    }

    /// The driver replaced the engine (a server came back at another sample rate): the streams
    /// fed the old engine, which is gone with its rings' users; drop them and play the same file
    /// from the same place through the new one. Targets carry over (the new engine starts from
    /// them); events still in flight to the old engine are lost.
    public func engineReplaced() {
        let path = stream?.path
        let position = lastPlayerSeconds
        stream = nil
        retired.removeAll()
        deferredLoad = nil
        markerNames.removeAll()
        suppressEchoes = 0
        lastMeterSums = (0, 0, 0)
        if let path { loadPlayer(path: path, startSeconds: position, from: nil, address: "") }
    }

    /// Takes over a stream the driver attached to the engine before it started.
    public func adoptPlayer(_ s: PlayerStream) {
        stream = s
        s.loop = loop
    }

    /// Position of the player in the file, in seconds.
    public var playerSeconds: Double {
        guard let s = stream, let engine else { return 0 }
        var t = s.startSeconds + Double(engine.monitor.get(.playerFrames)) / engine.sampleRate
        if s.durationSeconds > 0 && t >= s.durationSeconds { t = loop ? t.truncatingRemainder(dividingBy: s.durationSeconds) : s.durationSeconds }
        return t
    }

    /// The file playing, if any.
    public var playerPath: String? { stream?.path }

    /// Frees the streams whose rings the engine has let go of; then runs a deferred load.
    private func collectStreams() {
        retired.removeAll { !$0.isAttached }
        if retired.isEmpty, let d = deferredLoad {
            deferredLoad = nil
            loadPlayer(path: d.path, startSeconds: d.startSeconds, from: d.from, address: d.address)
        }
    }

    // MARK: - Feedback from the render thread

    private func drainApplied() {
        guard let engine else { return }
        while let e = engine.nextApplied() {
            if e.kind == .parameter {
                lastApplied.append(e)
                if lastApplied.count > 64 { lastApplied.removeFirst() }
            }
            switch e.kind {
            case .releasedRing:
                for s in retired + [stream].compactMap({ $0 }) where e.ring == s.ring { s.isAttached = false }
                if let s = stream, !s.isAttached { stream = nil }
            case .marker:
                if let m = markerNames.removeValue(forKey: Int(e.value)) {
                    if e.isScheduled { lastPreset = m.name }
                    notify(OSCMessage("/rack/preset", [.string(m.name)]))
                    record(AutomationWriter.presetLine(name: m.name, rampFrames: m.rampFrames, sampleTime: e.sampleTime,
                                                       sampleRate: engine.sampleRate, origin: 0))
                    suppressEchoes = Parameters.all.count
                }
            case .parameter:
                nsm?.markDirty(socket: socket)
                let spec = Parameters[e.parameter]
                if e.isScheduled { targets[e.parameter] = e.value }
                notify(OSCMessage(spec.address, [spec.taper == .choice ? .string(spec.format(e.value)) : .float(Float(e.value))]))
                if suppressEchoes > 0 {
                    suppressEchoes -= 1
                } else if let line = AutomationWriter.line(for: e, sampleRate: engine.sampleRate, origin: 0) {
                    record(line)
                }
            case .play, .stop:
                if let line = AutomationWriter.line(for: e, sampleRate: engine.sampleRate, origin: 0) { record(line) }
            case .attachPlayer:
                break
            }
        }
    }

    /// `/rack/meter f:peak_l f:peak_r f:rms_l f:rms_r` (dBFS, −120 for silence)
    /// `f:dsp_load_percent i:xruns i:ramping` to every meter subscriber.
    private func sendMeters() {
        guard let engine else { return }
        let m = engine.monitor.takeMeters()
        let frames = m.frames - lastMeterSums.frames
        let rmsL = frames > 0 ? ((m.sumSquaresLeft - lastMeterSums.left) / Double(frames)).squareRoot() : 0
        let rmsR = frames > 0 ? ((m.sumSquaresRight - lastMeterSums.right) / Double(frames)).squareRoot() : 0
        lastMeterSums = (m.sumSquaresLeft, m.sumSquaresRight, m.frames)
        guard !meterSubscribers.isEmpty else { return }
        func db(_ x: Double) -> Float { x > 1e-6 ? Float(20 * log10(x)) : -120 }
        let msg = OSCMessage("/rack/meter", [
            .float(db(Double(m.peakLeft))), .float(db(Double(m.peakRight))), .float(db(rmsL)), .float(db(rmsR)),
            .float(Float(host.dspLoadPercent)), .int(Int32(clamping: host.xruns)),
            .int(Int32(engine.monitor.get(.ramping))),
        ]).encoded()
        for s in meterSubscribers { socket.send(msg, to: s) }
    }

    private func notify(_ m: OSCMessage) {
        guard !subscribers.isEmpty else { return }
        let bytes = m.encoded()
        for s in subscribers { socket.send(bytes, to: s) }
    }

    // MARK: - Recording

    private func record(_ line: String) {
        guard recordPath != nil else { return }
        recordLines.append(line)
        recordDirty = true
    }

    /// Writes the recording so far (atomically: the file is always a whole automation file).
    public func flushRecording() {
        guard let path = recordPath, recordDirty || !FileManager.default.fileExists(atPath: path) else { return }
        let header = "# recorded by rack run at \(Int(sampleRate)) Hz: TIME ADDRESS ARGS...\n"
        let text = header + recordLines.map { $0 + "\n" }.joined()
        let dir = (path as NSString).deletingLastPathComponent
        do {
            try atomicWrite(Array(text.utf8), to: path, directory: dir.isEmpty ? "." : dir)
            recordDirty = false
        } catch {
            log(error.message)
        }
    }

    // MARK: - Replies

    private func reply(_ m: OSCMessage, to: OSCEndpoint) { socket.send(m.encoded(), to: to) }

    private func replyError(to: OSCEndpoint, address: String, reason: String) {
        let now = monotonicSeconds()
        if now - errorBudgetTime >= 1 {
            errorBudgetTime = now
            errorBudget = ControllerTuning.errorRepliesPerSecond
        }
        guard errorBudget > 0 else { droppedErrorReplies += 1; return }
        errorBudget -= 1
        reply(OSCMessage("/rack/error", [.string(address), .string(reason)]), to: to)
    }
}

/// Why a message was refused (the text of its `/rack/error` reply).
struct Reason: Error {
    let text: String
    init(_ text: String) { self.text = text }
}

/// Constants of the control thread.
public enum ControllerTuning {
    /// How long the control loop waits for a packet before doing its periodic work.
    public static let pollMilliseconds: Int32 = 5
    /// `/rack/error` replies sent per second at most (a flood of bad packets is not amplified).
    public static let errorRepliesPerSecond = 200
    public static let maximumSubscribers = 64
    /// `/rack/meter` messages per second.
    public static let meterHz = 15.0
}

func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
