import RackEngine
import RackWire

/// What a controller can ask about the rack: `/ping`, `/rack/version`, `/rack/status`,
/// `/rack/stats`, `/rack/params`.
extension RackController {
    /// The queries about the rack.
    static let infoCommands = [
        OSCCommand(.ping) { c, r in c.ping(r) },
        OSCCommand(.version) { c, r in c.version(r) },
        OSCCommand(.status) { c, r in c.status(r) },
        OSCCommand(.stats) { c, r in c.stats(r) },
        OSCCommand(.params) { c, r in c.params(r) },
    ]

    func ping(_ r: Request) { replies.reply(OSCMessage("/pong"), to: r.from) }

    func version(_ r: Request) { replies.reply(OSCMessage(OSCCommandDeclaration.version.address, [.string(Self.namespaceVersion)]), to: r.from) }

    /// `/rack/status i:rate i:period i:xruns f:dsp_load f:player_seconds s:state
    /// i:replaced_samples s:player_error`. The last field (appended at the end, so clients that read the first
    /// six keep working) counts input samples that were not audio (NaN, ±Inf,
    /// beyond +60 dBFS) and were replaced by silence: one per channel sample, since the engine
    /// started (rack start, or a server that came back at another rate). A count that keeps
    /// moving means an upstream client or file is misbehaving. `s:player_error` (appended after
    /// it): why the player stopped by itself (a truncated or corrupt file), empty otherwise.
    func status(_ r: Request) {
        replies.reply(OSCMessage(OSCCommandDeclaration.status.address, [
            .int(Int32(link.sampleRate)), .int(Int32(link.host.bufferSize)), .int(Int32(clamping: link.host.xruns)),
            .float(Float(link.host.dspLoadPercent)), .float(Float(playerSeconds)), .string(link.host.stateName),
            .int(Int32(clamping: link.engine?.monitor.get(.replacedInputSamples) ?? 0)), .string(playerFailure),
        ]), to: r.from)
    }

    /// `/rack/stats i:cycles f:median_us f:p99_us f:max_us f:period_us i:xruns` since the last ask.
    func stats(_ r: Request) {
        let s = link.host.takeCycleStats()
        let period = Double(link.host.bufferSize) / link.sampleRate * 1e6
        replies.reply(OSCMessage(OSCCommandDeclaration.stats.address, [
            .int(Int32(clamping: s.cycles)), .float(Float(s.medianMicroseconds)), .float(Float(s.p99Microseconds)),
            .float(Float(s.maxMicroseconds)), .float(Float(period)), .int(Int32(clamping: link.host.xruns)),
        ]), to: r.from)
    }

    /// One `/rack/params s:name s:unit f:min f:max f:default s:taper` per parameter.
    func params(_ r: Request) {
        for spec in Parameters.all {
            replies.reply(OSCMessage(OSCCommandDeclaration.params.address, [
                .string(spec.name), .string(spec.unit), .float(Float(spec.minimum)), .float(Float(spec.maximum)),
                .float(Float(spec.defaultValue)), .string(spec.taper.rawValue),
            ]), to: r.from)
        }
    }
}
