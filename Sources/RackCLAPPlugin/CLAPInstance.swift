import RackDSP
import RackEngine
import RackPlugin

/// One instance of the CLAP plugin: the parameters' values (which the plugin owns in CLAP) and,
/// while active, the shared plugin engine (`PluginEngine`). Made in the factory's
/// `create_plugin`, gone in `destroy`.
///
/// Threading, as CLAP defines it: `activate`, `deactivate` and the state run on the main thread
/// while not processing; `process` (`setParameter`, `render`) on the audio thread. The values
/// are plain Doubles the audio thread writes and the main thread may read (`get_value`).
struct CLAPInstance: ~Copyable {
    /// Each parameter's value, by `ParameterID.rawValue`.
    let values: UniqueBuffer<Double>
    /// Each parameter's CLAP id, by `ParameterID.rawValue`.
    let ids: UniqueBuffer<UInt32>
    /// Each parameter's limits, by `ParameterID.rawValue`.
    let limits: UniqueBuffer<ControlLimits>
    /// The engine, while active.
    private var engine: UnsafeMutablePointer<PluginEngine>?

    init() {
        let all = Parameters.all
        values = UniqueBuffer(count: all.count) { all[$0].defaultValue }
        ids = UniqueBuffer(count: all.count) { CLAPParameters.id(ofName: all[$0].name) }
        limits = UniqueBuffer(count: all.count) { ControlLimits(all[$0]) }
    }

    deinit {
        if let engine {
            engine.deinitialize(count: 1)
            engine.deallocate()
        }
    }

    /// `activate`: a fresh engine at `sampleRate` for blocks of up to `maxFrames`; false when
    /// the engine cannot run at that rate. The first `render` takes every value without a ramp.
    mutating func activate(sampleRate: Double, maxFrames: Int) -> Bool {
        deactivate()
        guard let made = PluginEngine(sampleRate: sampleRate, announcedMaxFrames: maxFrames) else { return false }
        let p = UnsafeMutablePointer<PluginEngine>.allocate(capacity: 1)
        p.initialize(to: made)
        engine = p
        return true
    }

    /// `deactivate`: the engine goes (a later `activate` starts over).
    mutating func deactivate() {
        guard let p = engine else { return }
        p.deinitialize(count: 1)
        p.deallocate()
        engine = nil
    }

    /// The index of the parameter with CLAP id `id`, nil for an unknown id.
    /// - Realtime: safe
    @_noLocks
    func index(of id: UInt32) -> Int? {
        for index in 0..<ids.count where ids.base[index] == id { return index }
        return nil
    }

    /// A parameter event: parameter `id` takes `value` (clamped; a choice rounded) from the
    /// next `render`, which ramps to it. An unknown id or NaN changes nothing.
    /// - Realtime: safe
    @_noLocks
    func setParameter(_ id: UInt32, _ value: Double) {
        guard let index = index(of: id), let accepted = limits.base[index].accept(value) else { return }
        values.base[index] = accepted
    }

    /// `reset`: the engine forgets its history (the reverb's tail, the filter's state); the
    /// values stay. Nothing while inactive.
    /// - Realtime: safe
    @_noLocks
    func reset() {
        engine?.pointee.clearHistory()
    }

    /// A new block for the meters (`PluginMeter`): they cover what `render` renders from here.
    /// - Realtime: safe
    @_noLocks
    func startMeters() {
        engine?.pointee.startMeters()
    }

    /// Each meter's level in dBFS over the block since `startMeters`, into `levels` (by
    /// `PluginMeter.rawValue`); the floor while inactive.
    /// - Realtime: safe
    @_noLocks
    func meters(into levels: UnsafeMutablePointer<Float>) {
        // By raw value (`allCases` is an array: it allocates).
        var index = 0
        while let meter = PluginMeter(rawValue: index) {
            levels[index] = engine?.pointee.levels.decibels(meter) ?? PluginMeter.floorDecibels
            index += 1
        }
    }

    /// Renders `frames` frames with the current values; false (nothing written) while inactive.
    /// - Realtime: safe
    @_noLocks
    func render(frames: Int, inputLeft: UnsafePointer<Float>?, inputRight: UnsafePointer<Float>?,
                outputLeft: UnsafeMutablePointer<Float>?, outputRight: UnsafeMutablePointer<Float>?) -> Bool {
        guard let engine else { return false }
        engine.pointee.render(frames: frames, values: UnsafePointer(values.base), inputLeft: inputLeft,
                              inputRight: inputRight, outputLeft: outputLeft, outputRight: outputRight)
        return true
    }
}
