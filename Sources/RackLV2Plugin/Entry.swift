import CLV2
import RackDSP
import RackLV2

// The LV2 entry points: `lv2_descriptor` (the shared object's only exported symbol, see
// exports.map) and the descriptor's callbacks, each a thin C-convention wrapper around
// `PluginInstance`.

/// The descriptor hosts get from `lv2_descriptor(0)`: built once, never freed.
nonisolated(unsafe) private let descriptor: UnsafeMutablePointer<LV2_Descriptor> = {
    let d = UnsafeMutablePointer<LV2_Descriptor>.allocate(capacity: 1)
    let uri = PluginLayout.uri.withUTF8Buffer { $0.baseAddress.map { UnsafeRawPointer($0) } }
    d.initialize(to: LV2_Descriptor(
        URI: uri?.assumingMemoryBound(to: CChar.self),
        instantiate: { _, sampleRate, _, features in
            let announced = Int(rack_lv2_max_block_length(features))
            guard let instance = PluginInstance(sampleRate: sampleRate, announcedMaxFrames: announced) else { return nil }
            let handle = UnsafeMutablePointer<PluginInstance>.allocate(capacity: 1)
            handle.initialize(to: instance)
            return UnsafeMutableRawPointer(handle)
        },
        connect_port: connectPort,
        activate: { handle in instance(handle).pointee.activate() },
        run: rack_lv2_run,
        deactivate: { _ in },
        cleanup: { handle in
            let p = instance(handle)
            p.deinitialize(count: 1)
            p.deallocate()
        },
        extension_data: { _ in nil }))
    return d
}()

/// The instance behind an LV2 handle.
/// - Realtime: safe
@_noLocks @inline(__always)
private func instance(_ handle: LV2_Handle?) -> UnsafeMutablePointer<PluginInstance> {
    handle.unsafelyUnwrapped.assumingMemoryBound(to: PluginInstance.self)
}

/// `connect_port`: remembers where port `port` lives (an index past the last port is ignored).
/// - Realtime: safe (LV2 allows it in the audio class)
@_noLocks
private func connectPort(_ handle: LV2_Handle?, _ port: UInt32, _ data: UnsafeMutableRawPointer?) {
    let p = instance(handle)
    if Int(port) < p.pointee.portCount { p.pointee.ports.base[Int(port)] = data }
}

/// `run` (through `rack_lv2_run`, which brackets it for the runtime probe): renders `frames`
/// frames.
/// - Realtime: safe
@_cdecl("rack_lv2_render") @_noLocks
func rackLV2Render(_ handle: LV2_Handle?, _ frames: UInt32) {
    instance(handle).pointee.run(frames: Int(frames))
}

/// The plugin library's entry point: the one plugin at index 0.
@_cdecl("lv2_descriptor")
public func lv2Descriptor(_ index: UInt32) -> UnsafePointer<LV2_Descriptor>? {
    index == 0 ? UnsafePointer(descriptor) : nil
}
