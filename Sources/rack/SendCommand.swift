import ArgumentParser
import Foundation
import RackEngine
import RackOSC
import RackWire

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Play an automation file live to a running rack, as OSC bundles with timetags.",
        discussion: "Each event goes out as a bundle timetagged with its time from the start (plus --lead), sent --lead seconds ahead, so the rack applies it at the exact sample whatever the network jitter.")

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
            let origin = OSCTimeTag.now().adding(seconds: lead)
            let start = Date()
            for e in automation.events {
                // Wait until `lead` seconds before the event is due.
                let wait = e.time - Date().timeIntervalSince(start)
                if wait > 0 { usleep(useconds_t(min(wait, 3600) * 1e6)) }
                let bundle = OSCPacket.bundle([OSCMessage(e.address, Self.arguments(of: e))], timeTag: origin.adding(seconds: e.time))
                guard socket.send(bundle, to: target) else {
                    throw RackError(.ioError, "cannot send to \(target): \(String(cString: strerror(errno)))")
                }
            }
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
                : .double(Double(e.arguments.first ?? "") ?? value)   // as written: /norm stays normalized
            return [first] + seconds(ramp)
        case .play, .stop:
            return []
        }
    }
}
