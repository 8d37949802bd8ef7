import ArgumentParser
import Foundation
import RackEngine
import RackFiles
import RackOSC
import RackWire

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Play an automation file live to a running rack, as OSC bundles with timetags.",
        discussion: "Each event goes out as a bundle timetagged with its time from the start (plus --lead), sent --lead seconds ahead, so the rack applies it at the exact sample whatever the network jitter. It first checks that a rack answers /ping (exit 69 if none does), paces itself so that the rack can take every event (a file denser than the rack can schedule ahead is delivered whole, the excess applied on arrival), shows progress on a terminal, and exits 69 when the rack refused events.")

    @Argument(help: "Automation file.")
    var file: String
    @Option(help: "Where the rack listens (HOST:PORT).")
    var to = "\(OSCDefaults.host):\(OSCDefaults.port)"
    @Option(help: "How far ahead of its time each bundle is sent, in seconds.")
    var lead = 0.2

    func validate() throws {
        guard OSCEndpoint(to) != nil else { throw ValidationError("--to '\(to)' is not HOST:PORT with an IPv4 host") }
        guard lead >= 0.01 && lead <= 10 else { throw ValidationError("--lead must be 0.01…10 seconds") }
    }

    func run() throws {
        try runReportingErrors {
            let presets = PresetStore.standard()
            let automation = try loadAutomation(file, presets: presets, length: nil)
            let target = OSCEndpoint(to)!
            let socket: UDPSocket
            do { socket = try UDPSocket(host: "0.0.0.0", port: 0) } catch {
                throw RackError(.unavailable, "cannot open a UDP socket: \(error.localizedDescription)")
            }
            let sender = AutomationSender(socket: socket, target: target, lead: lead)
            guard sender.rackAnswers() else {
                throw RackError(.unavailable, "no rack answers OSC at \(target) (is `rack run` listening there? --to HOST:PORT)")
            }
            let bar = isatty(STDERR_FILENO) == 1 ? ProgressBar(label: "sending \(file)") : nil
            let total = max(automation.events.count, 1)
            let started = ProcessInfo.processInfo.systemUptime
            let outcome = sender.play(automation.events) { bar?.update(Double($0) / Double(total)) }
            bar?.finish()
            try Self.report(outcome, of: automation.events.count, to: target)
            let seconds = ProcessInfo.processInfo.systemUptime - started
            warn(String(format: "rack: sent %d event%@ to %@ in %.1f s", automation.events.count,
                        automation.events.count == 1 ? "" : "s", "\(target)", seconds))
        }
    }

    /// One line for what did not go as written: refused events end the command (69), late
    /// ones are a warning.
    static func report(_ outcome: AutomationSender.Outcome, of count: Int, to target: OSCEndpoint) throws(RackError) {
        if outcome.refused > 0 {
            throw RackError(.unavailable, "the rack at \(target) refused \(outcome.refused) of \(count) events (first: \(outcome.firstRefusal ?? "?"))")
        }
        if outcome.late > 0 {
            warn(messagePrefix + "warning: \(outcome.late) of \(count) events were sent after their time (the file is denser than the rack schedules ahead) and applied on arrival")
        }
    }

    /// The OSC arguments of an event as `rack check` resolved it: a preset goes by the name the
    /// check found (a user preset named "1" stays that preset, never factory preset 1), a room
    /// by its name, numbers as doubles (`d`: the value the file wrote, exactly).
    static func arguments(of e: AutomationEvent) -> [OSCValue] {
        func seconds(_ s: Double?) -> [OSCValue] { s.map { [.double($0)] } ?? [] }
        switch e.action {
        case let .preset(name, ramp):
            return [.string(name)] + seconds(ramp)
        case let .set(id, value, ramp):
            let spec = Parameters[id]
            let first: OSCValue = spec.taper == .choice ? .string(spec.format(value))
                : .double(DecimalNumber.parse(e.arguments.first ?? "") ?? value)   // as written: /norm stays normalized
            return [first] + seconds(ramp)
        case .play, .stop:
            return []
        case let .loop(on):
            return [.int(on ? 1 : 0)]
        case let .seek(seconds):
            return [.double(seconds)]
        }
    }
}
