import CJack
import RackEngine

/// The process callback's MIDI stage (the C trampoline calls it before the render): the
/// router takes its new map and moves the feedback CCs the control thread queued to the output
/// (at most `outCapacity`; the rest go out next cycle), then every input event of the cycle
/// goes through it at its frame. Nothing here allocates or locks.
/// - Realtime: safe
@_noLocks
func jackMIDI(_ midi: UnsafeMutableRawPointer?, _ engine: UnsafeMutableRawPointer?, _ frames: UInt32,
              _ events: UnsafePointer<rack_midi_event_t>?, _ count: UInt32,
              _ out: UnsafeMutablePointer<UInt8>?, _ outCapacity: UInt32) -> UInt32 {
    guard let midi, let engine, let out else { return 0 }
    let router = midi.assumingMemoryBound(to: MIDIRouter.self)
    let core = engine.assumingMemoryBound(to: EngineCore.self)
    let sent = router.pointee.beginCycle(core, out: out, capacity: Int(outCapacity))
    if let events {
        for i in 0..<Int(count) {
            let e = events[i]
            guard let data = e.data else { continue }
            router.pointee.receive(data, count: Int(e.size), frame: Int(e.frame), core: core)
        }
    }
    return UInt32(sent)
}
