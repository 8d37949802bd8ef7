import RackDSP
import RackEngine
import RackPlugin

// The Swift side of the CLAP plugin: what Sources/CCLAP/plugin.c (the CLAP structs, the entry,
// the factory, the extensions) calls, through C names that the shared object does not export
// (exports.map: only `clap_entry`). `handle` is a `CLAPInstance` made by `rack_clap_create`.

@inline(__always)
private func instance(_ handle: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CLAPInstance> {
    handle.unsafelyUnwrapped.assumingMemoryBound(to: CLAPInstance.self)
}

/// A new instance, every parameter at its default.
@_cdecl("rack_clap_create")
func rackCLAPCreate() -> UnsafeMutableRawPointer {
    let p = UnsafeMutablePointer<CLAPInstance>.allocate(capacity: 1)
    p.initialize(to: CLAPInstance())
    return UnsafeMutableRawPointer(p)
}

@_cdecl("rack_clap_destroy")
func rackCLAPDestroy(_ handle: UnsafeMutableRawPointer?) {
    let p = instance(handle)
    p.deinitialize(count: 1)
    p.deallocate()
}

/// False when the engine cannot run at `sampleRate` (rack's 8–384 kHz).
@_cdecl("rack_clap_activate")
func rackCLAPActivate(_ handle: UnsafeMutableRawPointer?, _ sampleRate: Double, _ maxFrames: UInt32) -> Bool {
    instance(handle).pointee.activate(sampleRate: sampleRate, maxFrames: Int(maxFrames))
}

@_cdecl("rack_clap_deactivate")
func rackCLAPDeactivate(_ handle: UnsafeMutableRawPointer?) {
    instance(handle).pointee.deactivate()
}

/// - Realtime: safe
@_cdecl("rack_clap_set") @_noLocks
func rackCLAPSet(_ handle: UnsafeMutableRawPointer?, _ id: UInt32, _ value: Double) {
    instance(handle).pointee.setParameter(id, value)
}

/// CLAP's `reset` (audio thread, active): no tail or filter state carries over.
/// - Realtime: safe
@_cdecl("rack_clap_reset") @_noLocks
func rackCLAPReset(_ handle: UnsafeMutableRawPointer?) {
    instance(handle).pointee.reset()
}

/// - Realtime: safe
@_cdecl("rack_clap_render") @_noLocks
func rackCLAPRender(_ handle: UnsafeMutableRawPointer?, _ frames: UInt32,
                    _ inL: UnsafePointer<Float>?, _ inR: UnsafePointer<Float>?,
                    _ outL: UnsafeMutablePointer<Float>?, _ outR: UnsafeMutablePointer<Float>?) -> Bool {
    instance(handle).pointee.render(frames: Int(frames), inputLeft: inL, inputRight: inR, outputLeft: outL, outputRight: outR)
}

/// How many CLAP parameters there are: the table's rows, then the meters (`PluginMeter`).
@_cdecl("rack_clap_param_count")
func rackCLAPParamCount() -> UInt32 { UInt32(Parameters.all.count + PluginMeter.allCases.count) }

/// How many parameters a state holds: the table's rows.
@_cdecl("rack_clap_table_count")
func rackCLAPTableCount() -> UInt32 { UInt32(Parameters.all.count) }

/// The meter whose CLAP id is `id` (the FNV-1a hash of its symbol, as a row's of its name).
private func meter(withID id: UInt32) -> PluginMeter? {
    PluginMeter.allCases.first { CLAPParameters.id(ofName: $0.symbol) == id }
}

/// The index (`PluginMeter.rawValue`) of the meter with CLAP id `id`; -1 for none.
@_cdecl("rack_clap_meter_index")
func rackCLAPMeterIndex(_ id: UInt32) -> Int32 {
    meter(withID: id).map { Int32($0.rawValue) } ?? -1
}

/// The meters' floor in dBFS: what they read before the first block.
@_cdecl("rack_clap_meter_floor")
func rackCLAPMeterFloor() -> Float { PluginMeter.floorDecibels }

/// A new block for the meters.
/// - Realtime: safe
@_cdecl("rack_clap_meters_start") @_noLocks
func rackCLAPMetersStart(_ handle: UnsafeMutableRawPointer?) {
    instance(handle).pointee.startMeters()
}

/// The meters' levels over the block since `rack_clap_meters_start`, in dBFS, into `levels`
/// (by `PluginMeter.rawValue`).
/// - Realtime: safe
@_cdecl("rack_clap_meters") @_noLocks
func rackCLAPMeters(_ handle: UnsafeMutableRawPointer?, _ levels: UnsafeMutablePointer<Float>) {
    instance(handle).pointee.meters(into: levels)
}

/// Parameter `index`'s id, flags, range and default, its name and its section (CLAP's
/// `module`): a row of the table, or past them a meter (read-only, module "meters").
@_cdecl("rack_clap_param_info")
func rackCLAPParamInfo(_ index: UInt32, _ id: UnsafeMutablePointer<UInt32>, _ flags: UnsafeMutablePointer<UInt32>,
                       _ range: UnsafeMutablePointer<Double>, _ name: UnsafeMutablePointer<CChar>, _ nameSize: Int,
                       _ module: UnsafeMutablePointer<CChar>, _ moduleSize: Int) -> Bool {
    if Int(index) >= Parameters.all.count {
        guard let meter = PluginMeter(rawValue: Int(index) - Parameters.all.count) else { return false }
        id.pointee = CLAPParameters.id(ofName: meter.symbol)
        flags.pointee = CLAPParameters.meterFlags
        range[0] = Double(PluginMeter.floorDecibels)
        range[1] = Double(PluginMeter.ceilingDecibels)
        range[2] = Double(PluginMeter.floorDecibels)
        copy(meter.symbol, to: name, capacity: nameSize)
        copy("meters", to: module, capacity: moduleSize)
        return true
    }
    let spec = Parameters.all[Int(index)]
    id.pointee = CLAPParameters.id(ofName: spec.name)
    flags.pointee = CLAPParameters.flags(spec)
    range[0] = spec.minimum
    range[1] = spec.maximum
    range[2] = spec.defaultValue
    copy(spec.name, to: name, capacity: nameSize)
    copy(spec.group.rawValue, to: module, capacity: moduleSize)
    return true
}

@_cdecl("rack_clap_get")
func rackCLAPGet(_ handle: UnsafeMutableRawPointer?, _ id: UInt32, _ value: UnsafeMutablePointer<Double>) -> Bool {
    let p = instance(handle)
    guard let index = p.pointee.index(of: id) else { return false }
    value.pointee = p.pointee.values.base[index]
    return true
}

/// The row whose CLAP id is `id`.
private func spec(withID id: UInt32) -> ParameterSpec? {
    Parameters.all.first { CLAPParameters.id(ofName: $0.name) == id }
}

@_cdecl("rack_clap_value_to_text")
func rackCLAPValueToText(_ id: UInt32, _ value: Double, _ text: UnsafeMutablePointer<CChar>, _ size: Int) -> Bool {
    guard value.isFinite else { return false }
    if meter(withID: id) != nil {
        copy(CLAPParameters.meterText(value), to: text, capacity: size)
        return true
    }
    guard let spec = spec(withID: id) else { return false }
    copy(CLAPParameters.text(spec, value), to: text, capacity: size)
    return true
}

@_cdecl("rack_clap_text_to_value")
func rackCLAPTextToValue(_ id: UInt32, _ text: UnsafePointer<CChar>, _ value: UnsafeMutablePointer<Double>) -> Bool {
    if meter(withID: id) != nil {
        guard let v = CLAPParameters.meterValue(text: String(cString: text)) else { return false }
        value.pointee = v
        return true
    }
    guard let spec = spec(withID: id), let v = CLAPParameters.value(spec, text: String(cString: text)) else { return false }
    value.pointee = v
    return true
}

/// Writes the state into `buffer` (NUL-terminated) when it fits; returns its length in bytes.
@_cdecl("rack_clap_state_save")
func rackCLAPStateSave(_ handle: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<CChar>, _ size: Int) -> Int {
    let text = CLAPState.encode(UnsafePointer(instance(handle).pointee.values.base))
    let length = text.utf8.count
    if length < size { copy(text, to: buffer, capacity: size) }
    return length
}

/// The values a state (NUL-terminated text) gives, into `values` (`count` of them, by
/// `ParameterID.rawValue`); false, nothing written, when it is not a state.
@_cdecl("rack_clap_state_decode")
func rackCLAPStateDecode(_ text: UnsafePointer<CChar>, _ values: UnsafeMutablePointer<Double>, _ count: Int) -> Bool {
    guard let decoded = CLAPState.decode(String(cString: text)), decoded.count == count else { return false }
    for (index, value) in decoded.enumerated() { values[index] = value }
    return true
}

/// Every parameter takes its value from `values` (by `ParameterID.rawValue`, as
/// `rack_clap_state_decode` wrote them), ramping from the next render.
/// - Realtime: safe
@_cdecl("rack_clap_take") @_noLocks
func rackCLAPTake(_ handle: UnsafeMutableRawPointer?, _ values: UnsafePointer<Double>) {
    let p = instance(handle)
    let target = p.pointee.values.base
    for index in 0..<p.pointee.values.count { target[index] = values[index] }
}

/// The index (`ParameterID.rawValue`) of the parameter with CLAP id `id`; -1 for none.
@_cdecl("rack_clap_param_index")
func rackCLAPParamIndex(_ handle: UnsafeMutableRawPointer?, _ id: UInt32) -> Int32 {
    instance(handle).pointee.index(of: id).map { Int32($0) } ?? -1
}
