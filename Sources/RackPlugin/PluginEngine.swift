import RackDSP
import RackEngine

/// Sizes a plugin picks when the host does not announce them.
public enum PluginTuning {
    /// The engine's block when the host gives no largest block, in frames: longer render calls
    /// are rendered in pieces of this size (the output does not depend on it).
    public static let fallbackMaxFrames = 4096
    /// Control → engine queue slots: one event per parameter per render call at most.
    static let queueCapacity = 64
}

/// The engine inside a plugin, whatever the plugin standard (LV2, CLAP): the engine and its
/// queues, the parameter table as the host's values meet it, the buffers for unconnected audio.
/// The host's adaptor keeps the parameters' values (`values`, by `ParameterID.rawValue`) and
/// calls `render`, which first hands the engine every value that moved. Allocated in `init`,
/// freed when it goes. Noncopyable: one owner.
///
/// Threading: `init`, `restart` and the end are never concurrent with `render`; `render` is the
/// realtime path and the only thread that touches the engine, so it is both the producer and
/// the consumer of the engine's queues.
public struct PluginEngine: ~Copyable {
    public let sampleRate: Double
    /// The engine's largest render call; `render` splits longer calls into pieces of this size.
    public let maxFrames: Int
    /// The engine, retained by hand (`Unmanaged` is plain data: `render` never retains it).
    private var engine: Unmanaged<Engine>
    private var core: UnsafeMutablePointer<EngineCore>
    private var controls: CommandQueue
    private var notices: NoticeQueue
    /// Each parameter's limits, by `ParameterID.rawValue`.
    public let limits: UniqueBuffer<ControlLimits>
    /// The value the engine was last given, by `ParameterID.rawValue`.
    private let current: UniqueBuffer<Double>
    /// The host's values as the engine takes them (the room rule applied), by `ParameterID.rawValue`.
    private let taken: UniqueBuffer<Double>
    /// The room rule for hosts (`PluginRoomRule`).
    private let roomRule = PluginRoomRule()
    /// How many parameters there are (the table's rows).
    public let parameterCount: Int
    /// Zeros for an audio input the host left unconnected; a sink for an unconnected output.
    private let silence: UniqueBuffer<Float>
    private let sink: UniqueStereo
    /// True until the first render after `init` or `restart`: it takes the values without a ramp.
    private var startsFresh = true
    /// The meters' peaks over what `render` rendered since the last `startMeters()`.
    public private(set) var levels = PluginLevels()

    /// Nil when the engine cannot run at `sampleRate`. `announcedMaxFrames` is the host's
    /// largest block, 0 when it gave none. Allocates everything `render` uses.
    public init?(sampleRate: Double, announcedMaxFrames: Int) {
        if EngineFormat.problem(sampleRate: sampleRate) != nil { return nil }
        self.sampleRate = sampleRate
        maxFrames = announcedMaxFrames > 0 ? min(announcedMaxFrames, EngineFormat.maximumFrames) : PluginTuning.fallbackMaxFrames
        engine = Self.makeEngine(sampleRate: sampleRate, maxFrames: maxFrames)
        core = engine.takeUnretainedValue().core
        controls = engine.takeUnretainedValue().controlQueue
        notices = engine.takeUnretainedValue().noticeQueue
        parameterCount = Parameters.all.count
        // By `ParameterID.rawValue`: the table is in id order.
        limits = UniqueBuffer(count: parameterCount) { index in ControlLimits(Parameters.all[index]) }
        current = UniqueBuffer(count: parameterCount) { index in Parameters.all[index].defaultValue }
        taken = UniqueBuffer(count: parameterCount) { index in Parameters.all[index].defaultValue }
        silence = UniqueBuffer(repeating: 0, count: maxFrames)
        sink = UniqueStereo(frames: maxFrames)
    }

    private static func makeEngine(sampleRate: Double, maxFrames: Int) -> Unmanaged<Engine> {
        .passRetained(Engine(sampleRate: sampleRate, maxFrames: maxFrames,
                             queueCapacity: PluginTuning.queueCapacity, pendingCapacity: PluginTuning.queueCapacity))
    }

    /// The instance starts over (no history across activations). An engine that has rendered is
    /// replaced by a fresh one (not realtime); the first `render` then takes the values at once.
    public mutating func restart() {
        if core.pointee.sampleTime != 0 {
            engine.release()
            engine = Self.makeEngine(sampleRate: sampleRate, maxFrames: maxFrames)
            core = engine.takeUnretainedValue().core
            controls = engine.takeUnretainedValue().controlQueue
            notices = engine.takeUnretainedValue().noticeQueue
        }
        startsFresh = true
    }

    /// Lets go of the engine (retained by hand); the buffers free themselves.
    deinit {
        engine.release()
    }

    /// Renders `frames` frames in pieces of at most `maxFrames`, after posting every value of
    /// `values` (by `ParameterID.rawValue`, already accepted by `limits`) that moved since the
    /// last call: a moved value ramps over its parameter's default ramp from the call's first
    /// sample; the first call after `init` or `restart` jumps. A nil input reads as silence; a
    /// nil output is rendered into a sink. The samples rendered are added to `levels`.
    /// - Realtime: safe (no allocation, no locks, no I/O; checked by the compiler).
    @_noLocks
    public mutating func render(frames: Int, values: UnsafePointer<Double>,
                                inputLeft: UnsafePointer<Float>?, inputRight: UnsafePointer<Float>?,
                                outputLeft: UnsafeMutablePointer<Float>?, outputRight: UnsafeMutablePointer<Float>?) {
        post(values)
        let silence = UnsafePointer(silence.base), sinkLeft = sink.left.base, sinkRight = sink.right.base
        var done = 0
        while done < frames {
            let n = min(maxFrames, frames - done)
            // A piece of an output the host left unconnected goes to the sink, from its start.
            let outL = outputLeft.map { $0 + done } ?? sinkLeft
            let outR = outputRight.map { $0 + done } ?? sinkRight
            let inL = inputLeft.map { $0 + done } ?? silence
            let inR = inputRight.map { $0 + done } ?? silence
            _ = rackRender(core, frames: n, inputLeft: inL, inputRight: inR, outputLeft: outL, outputRight: outR)
            let reverb = core.pointee.reverbInput
            levels.take(frames: n, outputLeft: outL, outputRight: outR, reverbLeft: reverb.left, reverbRight: reverb.right)
            done += n
        }
        // The engine's notices of what it applied: nobody here reads them.
        while let notice = notices.pop() { _ = notice }
    }

    /// The host's reset: no history from here on (no reverb tail, no filter state); the
    /// parameters keep their values (`EngineCore.clearHistory`).
    /// - Realtime: safe
    @_noLocks
    public mutating func clearHistory() { core.pointee.clearHistory() }

    /// A new block for the meters: `levels` covers what `render` renders from here on.
    /// - Realtime: safe
    @_noLocks
    public mutating func startMeters() { levels.start() }

    /// Posts an event for every value that moved since the last call (all of them, without a
    /// ramp, on the first call after `init` or `restart`), the room rule applied
    /// (`PluginRoomRule`).
    /// - Realtime: safe
    @_noLocks
    private mutating func post(_ values: UnsafePointer<Double>) {
        let jump = startsFresh
        startsFresh = false
        roomRule.apply(values, limits: UnsafePointer(limits.base), into: taken.base)
        for index in 0..<parameterCount {
            let value = taken.base[index]
            if !jump && value == current.base[index] { continue }
            guard let parameter = ParameterID(rawValue: index) else { continue }
            let event = EngineEvent(.now, .set(parameter, value, ramp: jump ? .jump : .standard))
            // A full queue (a host rendering 0 frames again and again: the engine drains it
            // only when it renders) keeps the old value, so the change is posted again next call.
            if controls.push(.event(event)) { current.base[index] = value }
        }
    }
}
