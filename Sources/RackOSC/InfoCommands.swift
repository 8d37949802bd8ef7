import RackEngine
import RackWire

/// What a controller can ask about the rack: `/ping`, `/rack/version`, `/rack/status`,
/// `/rack/stats`, `/rack/params`. Each handler gets the `RackReadings` and the context.
enum InfoCommands {
    /// The queries about the rack.
    static let all = [
        OSCCommand(.ping) { c, r in c.reply(OSCMessage(OSCReplyAddress.pong), to: r.from) },
        OSCCommand(.version) { c, r in
            c.reply(OSCMessage(OSCCommandDeclaration.version.address, [.string(RackController.namespaceVersion)]), to: r.from)
        },
        OSCCommand(.status, in: \.info) { info, c, r in status(info, c, r) },
        OSCCommand(.stats, in: \.info) { info, c, r in stats(info, c, r) },
        OSCCommand(.params) { c, r in params(c, r) },
    ]

    /// `/rack/status i:rate i:period i:xruns f:dsp_load f:player_seconds s:state
    /// i:replaced_samples s:player_error`. The last field (appended at the end, so clients that read the first
    /// six keep working) counts input samples that were not audio (NaN, ±Inf,
    /// beyond +60 dBFS) and were replaced by silence: one per channel sample, since the engine
    /// started (rack start, or a server that came back at another rate). A count that keeps
    /// moving means an upstream client or file is misbehaving. `s:player_error` (appended after
    /// it): why the player stopped by itself (a truncated or corrupt file), empty otherwise.
    static func status(_ info: RackReadings, _ c: CommandContext, _ r: Request) {
        let host = info.host
        c.reply(OSCMessage(OSCCommandDeclaration.status.address, [
            .int(Int32(c.sampleRate)), .int(Int32(host.bufferSize)), .int(Int32(clamping: host.xruns)),
            .float(Float(host.dspLoadPercent)), .float(Float(info.player.seconds(in: c.engine))), .string(host.stateName),
            .int(Int32(clamping: c.engine?.monitor.get(.replacedInputSamples) ?? 0)), .string(info.player.slot.failure),
        ]), to: r.from)
    }

    /// `/rack/stats i:cycles f:median_us f:p99_us f:max_us f:period_us i:xruns` since the last ask.
    static func stats(_ info: RackReadings, _ c: CommandContext, _ r: Request) {
        let s = info.host.takeCycleStats()
        let period = Double(info.host.bufferSize) / c.sampleRate * 1e6
        c.reply(OSCMessage(OSCCommandDeclaration.stats.address, [
            .int(Int32(clamping: s.cycles)), .float(Float(s.medianMicroseconds)), .float(Float(s.p99Microseconds)),
            .float(Float(s.maxMicroseconds)), .float(Float(period)), .int(Int32(clamping: info.host.xruns)),
        ]), to: r.from)
    }

    /// One `/rack/params s:name s:unit f:min f:max f:default s:taper` per parameter.
    static func params(_ c: CommandContext, _ r: Request) {
        for spec in Parameters.all {
            c.reply(OSCMessage(OSCCommandDeclaration.params.address, [
                .string(spec.name), .string(spec.unit), .float(Float(spec.minimum)), .float(Float(spec.maximum)),
                .float(Float(spec.defaultValue)), .string(spec.taper.rawValue),
            ]), to: r.from)
        }
    }
}
