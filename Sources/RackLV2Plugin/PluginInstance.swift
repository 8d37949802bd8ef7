import RackDSP
import RackEngine
import RackLV2

/// Sizes the plugin picks when the host does not announce them.
enum PluginTuning {
    /// The engine's block when the host gives no `bufsz:maxBlockLength`, in frames: longer
    /// `run()` calls are rendered in pieces of this size (the output does not depend on it).
    static let fallbackMaxFrames = 4096
    /// Control → engine queue slots: one event per parameter per `run()` at most.
    static let queueCapacity = 64
}

/// One instance of the plugin: the engine and what `run()` needs around it, allocated in
/// `init` (the host's `instantiate`) and freed when the instance goes (`cleanup`
/// deinitialises it). Noncopyable: the host's handle points at the one instance.
///
/// Threading, as LV2 defines it: `init`, `activate`, `deactivate` and `cleanup` are never
/// called concurrently with `run()`; `run()` is the realtime path and the only thread that
/// touches the engine while the instance is active, so it is both the producer and the
/// consumer of the engine's queues.
struct PluginInstance: ~Copyable {
    let sampleRate: Double
    /// The engine's largest render call; `run()` splits longer calls into pieces of this size.
    let maxFrames: Int
    /// The engine, retained by hand (`Unmanaged` is plain data: `run()` never retains it).
    private var engine: Unmanaged<Engine>
    private var core: UnsafeMutablePointer<EngineCore>
    private var controls: EventQueue
    private var echoes: EventQueue

    /// Where the host connected each port (nil until it does).
    let ports: UniqueBuffer<UnsafeMutableRawPointer?>
    /// Each parameter's limits and the value the engine was last given, by `ParameterID.rawValue`.
    private let limits: UniqueBuffer<ControlLimits>
    private let current: UniqueBuffer<Double>
    /// The first control port's index and how many there are (`PluginLayout`'s, copied here so
    /// `run()` reads no global).
    private let firstControlPort: Int, controlCount: Int
    /// How many ports there are.
    let portCount: Int
    /// Zeros for an audio input the host left unconnected; a sink for an unconnected output.
    private let silence: UniqueBuffer<Float>
    private let sink: UniqueStereo
    /// True until the first `run()` after `activate`: it takes the ports' values without a ramp.
    private var startsFresh = true

    /// Nil when the engine cannot run at `sampleRate`. `announcedMaxFrames` is the host's
    /// `bufsz:maxBlockLength`, 0 when it gave none. Allocates everything `run()` uses.
    init?(sampleRate: Double, announcedMaxFrames: Int) {
        if EngineFormat.problem(sampleRate: sampleRate) != nil { return nil }
        self.sampleRate = sampleRate
        maxFrames = announcedMaxFrames > 0 ? min(announcedMaxFrames, EngineFormat.maximumFrames) : PluginTuning.fallbackMaxFrames
        engine = Self.makeEngine(sampleRate: sampleRate, maxFrames: maxFrames)
        core = engine.takeUnretainedValue().core
        controls = engine.takeUnretainedValue().controlQueue
        echoes = engine.takeUnretainedValue().appliedQueue
        portCount = PluginLayout.portCount
        ports = UniqueBuffer(repeating: nil, count: portCount)
        firstControlPort = PluginLayout.firstControlPort
        controlCount = Parameters.all.count
        // By `ParameterID.rawValue`: the table is in id order.
        limits = UniqueBuffer(count: controlCount) { index in ControlLimits(Parameters.all[index]) }
        current = UniqueBuffer(count: controlCount) { index in Parameters.all[index].defaultValue }
        silence = UniqueBuffer(repeating: 0, count: maxFrames)
        sink = UniqueStereo(frames: maxFrames)
    }

    private static func makeEngine(sampleRate: Double, maxFrames: Int) -> Unmanaged<Engine> {
        .passRetained(Engine(sampleRate: sampleRate, maxFrames: maxFrames,
                             queueCapacity: PluginTuning.queueCapacity, pendingCapacity: PluginTuning.queueCapacity))
    }

    /// `activate`: the instance starts over (LV2 asks for no history across activations). An
    /// engine that has rendered is replaced by a fresh one (not realtime: LV2 calls `activate`
    /// in the instantiation class); the first `run()` then takes the ports' values at once.
    mutating func activate() {
        if core.pointee.sampleTime != 0 {
            engine.release()
            engine = Self.makeEngine(sampleRate: sampleRate, maxFrames: maxFrames)
            core = engine.takeUnretainedValue().core
            controls = engine.takeUnretainedValue().controlQueue
            echoes = engine.takeUnretainedValue().appliedQueue
        }
        startsFresh = true
    }

    /// `cleanup`: lets go of the engine (retained by hand); the buffers free themselves.
    deinit {
        engine.release()
    }

    /// `run()`: takes the control ports (a moved port ramps over its parameter's default ramp
    /// from the call's first sample; the first call after `activate` jumps), then renders
    /// `frames` frames in pieces of at most `maxFrames`.
    /// - Realtime: safe (no allocation, no locks, no I/O; checked by the compiler).
    @_noLocks
    mutating func run(frames: Int) {
        readControls()
        let silence = silence.base, sinkLeft = sink.left.base, sinkRight = sink.right.base
        let inputLeft = audio(.inputLeft) ?? silence
        let inputRight = audio(.inputRight) ?? silence
        let outputLeft = audio(.outputLeft) ?? sinkLeft
        let outputRight = audio(.outputRight) ?? sinkRight
        var done = 0
        while done < frames {
            let n = min(maxFrames, frames - done)
            // A piece of an output the host left unconnected goes to the sink, from its start.
            let outL = outputLeft == sinkLeft ? sinkLeft : outputLeft + done
            let outR = outputRight == sinkRight ? sinkRight : outputRight + done
            let inL = UnsafePointer(inputLeft == silence ? silence : inputLeft + done)
            let inR = UnsafePointer(inputRight == silence ? silence : inputRight + done)
            _ = rackRender(core, frames: n, inputLeft: inL, inputRight: inR, outputLeft: outL, outputRight: outR)
            done += n
        }
        // The engine's echoes of what it applied: nobody here reads them.
        while let echo = echoes.pop() { _ = echo }
    }

    /// The buffer the host connected to audio port `port`, nil when none.
    /// - Realtime: safe
    @_noLocks
    private func audio(_ port: PluginLayout.AudioPort) -> UnsafeMutablePointer<Float>? {
        ports.base[port.rawValue]?.assumingMemoryBound(to: Float.self)
    }

    /// Posts an event for every control port whose value moved since the last call (all of
    /// them, without a ramp, on the first call after `activate`). An unconnected control port
    /// reads as its parameter's default; NaN leaves the parameter where it is.
    /// - Realtime: safe
    @_noLocks
    private mutating func readControls() {
        let jump = startsFresh
        startsFresh = false
        for index in 0..<controlCount {
            let limit = limits.base[index]
            let port = ports.base[firstControlPort + index]?.assumingMemoryBound(to: Float.self)
            let value: Double
            if let port {
                guard let accepted = limit.accept(port.pointee) else { continue }
                value = accepted
            } else {
                value = limit.defaultValue
            }
            if !jump && value == current.base[index] { continue }
            guard let parameter = ParameterID(rawValue: index) else { continue }   // ports are in table order (PluginLayout)
            let event = EngineEvent(sampleTime: EngineEvent.immediately, .set(parameter, value, ramp: jump ? .jump : .standard))
            // A full queue (a host calling run(0) again and again: the engine drains it only
            // when it renders) keeps the old value, so the change is posted again next call.
            if controls.push(event) { current.base[index] = value }
        }
    }
}
