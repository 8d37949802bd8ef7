import RackDSP
import RackEngine
import RackLV2
import RackPlugin

/// One instance of the LV2 plugin: the shared plugin engine (`PluginEngine`) and the ports
/// around it, allocated in `init` (the host's `instantiate`) and freed when the instance goes
/// (`cleanup` deinitialises it). Noncopyable: the host's handle points at the one instance.
///
/// Threading, as LV2 defines it: `init`, `activate`, `deactivate` and `cleanup` are never
/// called concurrently with `run()`; `run()` is the realtime path.
struct PluginInstance: ~Copyable {
    private var engine: PluginEngine
    /// Where the host connected each port (nil until it does).
    let ports: UniqueBuffer<UnsafeMutableRawPointer?>
    /// Each parameter's value as the control ports last gave it, by `ParameterID.rawValue`.
    private let values: UniqueBuffer<Double>
    /// The first control port's index (`PluginLayout`'s, copied here so `run()` reads no global).
    private let firstControlPort: Int
    /// The first meter port's index (`PluginLayout`'s, copied for the same reason).
    private let firstMeterPort: Int
    /// How many ports there are.
    let portCount: Int

    /// Nil when the engine cannot run at `sampleRate`. `announcedMaxFrames` is the host's
    /// `bufsz:maxBlockLength`, 0 when it gave none. Allocates everything `run()` uses.
    init?(sampleRate: Double, announcedMaxFrames: Int) {
        guard let engine = PluginEngine(sampleRate: sampleRate, announcedMaxFrames: announcedMaxFrames) else { return nil }
        self.engine = engine
        portCount = PluginLayout.portCount
        ports = UniqueBuffer(repeating: nil, count: portCount)
        firstControlPort = PluginLayout.firstControlPort
        firstMeterPort = PluginLayout.firstMeterPort
        values = UniqueBuffer(count: Parameters.all.count) { index in Parameters.all[index].defaultValue }
    }

    /// `activate`: the instance starts over (LV2 asks for no history across activations; not
    /// realtime: LV2 calls `activate` in the instantiation class).
    mutating func activate() {
        engine.restart()
    }

    /// `run()`: takes the control ports (a moved port ramps over its parameter's default ramp
    /// from the call's first sample; the first call after `activate` jumps), then renders
    /// `frames` frames, then writes the meters (`PluginMeter`, over these frames) to the meter
    /// ports the host connected.
    /// - Realtime: safe (no allocation, no locks, no I/O; checked by the compiler).
    @_noLocks
    mutating func run(frames: Int) {
        readControls()
        engine.startMeters()
        engine.render(frames: frames, values: UnsafePointer(values.base),
                      inputLeft: audio(.inputLeft).map { UnsafePointer($0) },
                      inputRight: audio(.inputRight).map { UnsafePointer($0) },
                      outputLeft: audio(.outputLeft), outputRight: audio(.outputRight))
        writeMeters()
    }

    /// Each connected meter port takes its meter's level in dBFS.
    /// - Realtime: safe
    @_noLocks
    private func writeMeters() {
        // By raw value (`allCases` is an array: it allocates).
        var index = 0
        while let meter = PluginMeter(rawValue: index) {
            if let port = ports.base[firstMeterPort + index]?.assumingMemoryBound(to: Float.self) {
                port.pointee = engine.levels.decibels(meter)
            }
            index += 1
        }
    }

    /// The buffer the host connected to audio port `port`, nil when none.
    /// - Realtime: safe
    @_noLocks
    private func audio(_ port: PluginLayout.AudioPort) -> UnsafeMutablePointer<Float>? {
        ports.base[port.rawValue]?.assumingMemoryBound(to: Float.self)
    }

    /// Reads every control port into `values`: an unconnected control port reads as its
    /// parameter's default; NaN leaves the parameter where it is.
    /// - Realtime: safe
    @_noLocks
    private func readControls() {
        for index in 0..<engine.parameterCount {
            let limit = engine.limits.base[index]
            // Ports are in table order (PluginLayout).
            if let port = ports.base[firstControlPort + index]?.assumingMemoryBound(to: Float.self) {
                if let accepted = limit.accept(Double(port.pointee)) { values.base[index] = accepted }
            } else {
                values.base[index] = limit.defaultValue
            }
        }
    }
}
