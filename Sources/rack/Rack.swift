import ArgumentParser
import Foundation
import RackEngine

@main
struct Rack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rack",
        abstract: "A JACK effects rack: file player + input → resonant low-pass → reverb → gain.",
        discussion: "Parameters:\n" + Parameters.all.map { spec in
            let range = spec.taper == .choice ? spec.choices.joined(separator: " ")
                : "\(formatNumber(spec.minimum))…\(formatNumber(spec.maximum)) \(spec.unit), default \(spec.format(spec.defaultValue))"
            return "  \(spec.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(spec.summary); \(range)"
        }.joined(separator: "\n") + "\n  (room default: \(Parameters[.room].format(Parameters[.room].defaultValue)))",
        subcommands: [RunCommand.self, RenderCommand.self, PresetsCommand.self, CheckCommand.self, SendCommand.self, PlotCommand.self, DemoLoopCommand.self])
}
