import Foundation
import RackEngine
import RackFiles
import RackWire

/// Presets over OSC: `/rack/preset` (recall), `/rack/preset/save`, `/rack/preset/delete`,
/// `/rack/preset/list`.
/// Each handler gets the `PresetStore` and the context.
enum PresetCommands {
    static let all = [
        OSCCommand(.presetRecall, in: \.presets) { p, c, r throws(Reason) in try recall(p, c, r) },
        OSCCommand(.presetSave, in: \.presets) { p, c, r throws(Reason) in try save(p, c, r) },
        OSCCommand(.presetDelete, in: \.presets) { p, c, r throws(Reason) in try delete(p, c, r) },
        OSCCommand(.presetList, in: \.presets) { p, c, r throws(Reason) in try list(p, c, r) },
    ]

    /// `/rack/preset NAME|INDEX [ramp]`: every parameter of the preset, all or nothing, behind
    /// a marker whose echo tells subscribers and the recording which preset it was.
    static func recall(_ presets: PresetStore, _ c: CommandContext, _ r: Request) throws(Reason) {
        let args = r.arguments   // the signature took a name or index and an optional number
        let typed: String
        if let name = args[0].string {
            typed = name
        } else if let n = args[0].number, n.isFinite, n == n.rounded(), abs(n) < 1e6 {
            typed = String(Int(n))
        } else {
            throw Reason("expects a preset name or index")
        }
        guard let preset = presets.preset(namedOrNumbered: typed) else { throw Reason(presets.unknownNameReason(typed)) }
        try recall(preset, rampFrames: try ParameterCommands.rampFrames(args, at: 1, sampleRate: c.sampleRate),
                   at: try c.sample(for: r.timeTag), origin: r.from, c)
    }

    /// Recalls `preset` at `t` (now or an engine sample), every parameter
    /// ramping over `rampFrames` (0: each one's default): the path of `/rack/preset` and of a
    /// MIDI program change. `origin`: the endpoint that asked (nil for MIDI).
    static func recall(_ preset: Preset, rampFrames ramp: Int64, at t: EventTime, origin: OSCEndpoint? = nil,
                       _ c: CommandContext) throws(Reason) {
        // All or nothing: a recall is never half-applied because the queue filled up.
        try c.submit(.preset(name: preset.name, state: preset.state, rampFrames: ramp), at: t, origin: origin)
    }

    /// `/rack/preset/save NAME`: the targets as a user preset; answered, once the file is
    /// written, with `/rack/preset/saved s:name i:number` (the name as stored, its number).
    static func save(_ presets: PresetStore, _ c: CommandContext, _ r: Request) throws(Reason) {
        let name = Self.presetName(r)
        try spendPresetWrite(c)
        let saved: Preset
        do { saved = try presets.save(name: name, state: c.targets) } catch { throw Self.reason(error) }
        let number = presets.index(of: saved).map { OSCValue.int(Int32($0)) }
        c.reply(OSCMessage(OSCReplyAddress.presetSaved, [.string(saved.name)] + (number.map { [$0] } ?? [])), to: r.from)
    }

    /// `/rack/preset/delete NAME`: a user preset.
    static func delete(_ presets: PresetStore, _ c: CommandContext, _ r: Request) throws(Reason) {
        let name = Self.presetName(r)
        try spendPresetWrite(c)
        do { try presets.delete(name: name) } catch { throw Self.reason(error) }
    }

    /// A preset file write costs a write and two fsyncs on the control thread: at most
    /// `ControllerTuning.presetWritesPerPacket` per datagram, so one packet (a bundle of saves)
    /// holds up the others' messages for one write at most.
    private static func spendPresetWrite(_ c: CommandContext) throws(Reason) {
        guard c.datagram.presetWrites < ControllerTuning.presetWritesPerPacket else { throw .presetWritesPerPacket }
        c.datagram.presetWrites += 1
    }

    /// `/rack/preset/list`: every preset's name, in number order, in one message when that fits
    /// `PresetListPages.wholeReplyBytes`, else as every page; `/rack/preset/list i PAGE`: that
    /// page (`PresetListPages`). The presets are read again when their directory changed.
    static func list(_ presets: PresetStore, _ c: CommandContext, _ r: Request) throws(Reason) {
        presets.refreshIfChanged()   // another rack's saves and deletes
        let names = presets.all.map(\.name)
        if let asked = r.arguments.first?.number {
            let pages = PresetListPages(names: names)
            guard asked.isFinite, asked == asked.rounded(), asked >= 0, asked < Double(pages.pages.count) else {
                throw Reason("no page \(formatNumber(asked)): pages 0…\(pages.pages.count - 1)")
            }
            c.reply(pages.message(Int(asked)), to: r.from)
            return
        }
        let whole = OSCMessage(OSCCommandDeclaration.presetList.address, names.map { .string($0) })
        guard whole.encoded().count > PresetListPages.wholeReplyBytes else { return c.reply(whole, to: r.from) }
        let pages = PresetListPages(names: names)
        for index in pages.pages.indices { c.reply(pages.message(index), to: r.from) }
    }

    private static func presetName(_ r: Request) -> String {
        r.arguments[0].string ?? ""   // the signature took one string
    }

    private static func reason(_ error: RackError) -> Reason {
        Reason(error.message)
    }
}
