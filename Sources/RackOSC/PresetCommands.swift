import Foundation
import RackEngine

/// Presets over OSC: `/rack/preset` (recall), `/rack/preset/save`, `/rack/preset/delete`,
/// `/rack/preset/list`.
extension RackController {
    /// `/rack/preset NAME|INDEX [ramp]`: every parameter of the preset, all or nothing, behind
    /// a marker whose echo tells subscribers and the recording which preset it was.
    func recallPreset(_ r: Request) throws(Reason) {
        let args = r.arguments
        guard args.count == 1 || args.count == 2 else { throw Reason("expects a preset name or index and an optional ramp time") }
        let preset: Preset?
        if let name = args[0].string {
            preset = presets.preset(named: name)
        } else if let n = args[0].number, n.isFinite, n == n.rounded(), abs(n) < 1e6 {
            preset = presets.preset(index: Int(n))
        } else {
            throw Reason("expects a preset name or index")
        }
        guard let preset else { throw Reason("unknown preset \(args[0])") }
        let ramp = try rampFrames(args, at: 1)
        let t = sample(for: r.timeTag)
        let marker = nextMarker
        nextMarker += 1
        markerNames[marker] = (preset.name, ramp)
        var events = [EngineEvent(sampleTime: t, kind: .marker, value: Double(marker))]
        events += preset.state.events(at: t, rampFrames: ramp)
        let scheduled = t != EngineEvent.immediately
        for i in events.indices { events[i].isScheduled = scheduled }
        // All or nothing: a recall is never half-applied because the queue filled up.
        guard let engine, engine.queueSpace >= events.count else { throw .busy }
        for e in events { _ = engine.post(e) }
        if !scheduled {
            targets = preset.state
            lastPreset = preset.name
        }
    }

    /// `/rack/preset/save NAME`: the targets as a user preset.
    func savePreset(_ r: Request) throws(Reason) {
        let name = try Self.presetName(r)
        do { try presets.save(name: name, state: targets) } catch { throw Self.reason(error) }
    }

    /// `/rack/preset/delete NAME`: a user preset.
    func deletePreset(_ r: Request) throws(Reason) {
        let name = try Self.presetName(r)
        do { try presets.delete(name: name) } catch { throw Self.reason(error) }
    }

    /// `/rack/preset/list`: every preset's name, in index order, in one message.
    func listPresets(_ r: Request) {
        reply(OSCMessage("/rack/preset/list", presets.all.map { .string($0.name) }), to: r.from)
    }

    private static func presetName(_ r: Request) throws(Reason) -> String {
        guard r.arguments.count == 1, let name = r.arguments[0].string else { throw Reason("expects one string: the preset name") }
        return name
    }

    private static func reason(_ error: RackError) -> Reason {
        Reason(error.message.replacingOccurrences(of: "rack: ", with: ""))
    }
}
