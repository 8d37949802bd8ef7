import Foundation
import RackEngine
import RackWire

/// MIDI on the control thread: the map (its file and the link that hands it to the render
/// thread), MIDI learn, and the program changes the render thread forwarded.
public final class MIDIControl {
    public let link: MIDILink
    /// Where the map is saved on every change; nil when there is no home to keep it in.
    public let path: String?
    /// The parameter MIDI learn binds the next CC that moves to, and who asked.
    var learning: (parameter: ParameterID, requester: OSCEndpoint)?
    /// The limit on stderr lines about program changes, as `/rack/error` is limited: a flood
    /// of unknown programs is not amplified into a flood of lines.
    var lineBudget = ErrorBudget(perSecond: ControllerTuning.midiLinesPerSecond)
    /// Lines left out that a later line has already counted.
    var linesReported = 0

    public init(link: MIDILink, path: String?) {
        self.link = link
        self.path = path
    }
}

/// `/rack/midi/learn [s:param]`, `/rack/midi/map`, `/rack/midi/unmap i:cc`: each handler gets
/// the `MIDIControl` (nil with `--no-midi`) and the context.
enum MIDICommands {
    static let all = [
        OSCCommand(.midiLearn, in: \.midi) { m, _, r throws(Reason) in try learn(m, r) },
        OSCCommand(.midiMap, in: \.midi) { m, c, r throws(Reason) in try map(m, c, r) },
        OSCCommand(.midiUnmap, in: \.midi) { m, _, r throws(Reason) in try unmap(m, r) },
    ]

    /// `/rack/midi/learn PARAM` binds the next CC that moves to PARAM (on the channel it came
    /// on); with no argument, cancels. When it binds, the requester gets `/rack/midi/map` for it.
    static func learn(_ midi: MIDIControl?, _ r: Request) throws(Reason) {
        guard let midi else { throw midiOff }
        guard let name = r.arguments.first?.string else {
            midi.learning = nil
            return
        }
        guard let spec = Parameters.named(name) else { throw Reason("unknown parameter \(name)" + Parameters.didYouMean(name)) }
        guard spec.taper != .choice else { throw Reason("\(name) is a choice, not a range a controller can sweep") }
        midi.link.startWatching()
        midi.learning = (spec.id, r.from)
    }

    /// `/rack/midi/map`: one `/rack/midi/map i:channel(0 = any) i:cc s:param` per binding.
    static func map(_ midi: MIDIControl?, _ c: CommandContext, _ r: Request) throws(Reason) {
        guard let midi else { throw midiOff }
        for b in midi.link.map.bindings { c.reply(bindingMessage(b), to: r.from) }
    }

    /// `/rack/midi/unmap CC`: removes the binding of controller CC.
    static func unmap(_ midi: MIDIControl?, _ r: Request) throws(Reason) {
        guard let n = r.arguments[0].number, n == n.rounded(), (0...127).contains(n) else {
            throw Reason("expects one controller number 0…127")
        }
        guard let midi else { throw midiOff }
        var map = midi.link.map
        guard map.unbind(controller: Int(n)) else { throw Reason("CC \(Int(n)) is not mapped") }
        try midi.store(map)
    }

    static let midiOff = Reason("MIDI is off (--no-midi)")

    static func bindingMessage(_ b: MIDIMap.Binding) -> OSCMessage {
        OSCMessage(OSCCommandDeclaration.midiMap.address, [.int(Int32(b.channel)), .int(Int32(b.controller)), .string(Parameters[b.parameter].name)])
    }
}

extension MIDIControl {
    /// Hands `map` to the render thread and saves it.
    func store(_ map: MIDIMap) throws(Reason) {
        link.set(map)
        guard let path else { throw Reason(MIDIMapFile.noFileReason) }
        do { try MIDIMapFile.save(map, path: path) } catch { throw Reason(error.message) }
    }
}

/// The MIDI pass of the control loop (`pollMIDI`).
extension RackController {
    /// The control loop's MIDI pass: frees retired tables, recalls the presets program changes
    /// asked for (in order, at this pass: a recall needs the control thread), and completes a
    /// MIDI learn when a controller moved.
    public func pollMIDI() {
        guard let midi else { return }
        midi.link.poll()
        for program in midi.link.takeProgramChanges() {
            guard let preset = presets.preset(index: program) else {
                logMIDI("MIDI program change \(program): unknown preset \(program)")
                continue
            }
            do throws(Reason) { try PresetCommands.recall(preset, rampFrames: 0, at: .now, context) } catch {
                logMIDI("MIDI program change \(program): \(error.text)")
            }
        }
        if let moved = midi.link.takeMovedController(), let learning = midi.learning {
            midi.learning = nil
            var map = midi.link.map
            let b = MIDIMap.Binding(channel: moved.channel, controller: moved.controller, parameter: learning.parameter)
            map.bind(b)
            do throws(Reason) {
                try midi.store(map)
                replies.reply(MIDICommands.bindingMessage(b), to: learning.requester)
            } catch {
                replies.replyError(to: learning.requester, address: OSCCommandDeclaration.midiLearn.address, reason: error.text)
            }
        }
    }

    /// Logs `line` within the budget of `ControllerTuning.midiLinesPerSecond`; the first line
    /// after some were left out says how many.
    private func logMIDI(_ line: String) {
        guard let midi, midi.lineBudget.spend(now: replies.now) else { return }
        let leftOut = midi.lineBudget.dropped - midi.linesReported
        if leftOut > 0 {
            log("MIDI: \(leftOut) program-change lines left out (at most \(ControllerTuning.midiLinesPerSecond) a second)")
            midi.linesReported = midi.lineBudget.dropped
        }
        log(line)
    }
}
