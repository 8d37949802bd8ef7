import ArgumentParser
import Foundation
import RackEngine
import RackFiles
import RackIO
import CJack
import RackJack
import RackOSC
import RackHTTP
import RackWire

extension JackDriver: RackHost {}

/// Largest render call the engine is prepared for; JACK periods longer than this are rendered
/// in several calls inside one process cycle, so no buffer-size change ever needs new memory.
let liveMaxFrames = 4096

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Join the running JACK server and serve OSC (the live rack).",
        discussion: """
            Ports: in_1 in_2 (live input, summed with the player), out_1 out_2, and midi_in midi_out \
            (MIDI control and feedback; --no-midi leaves them out). Without --file the \
            rack plays its synthesised demo loop. OSC listens on 127.0.0.1 unless --osc-host says \
            otherwise: binding another address lets anyone who can reach it control the rack; \
            use --allow to restrict senders. When an Avahi daemon runs, OSCQuery and OSC are \
            advertised over DNS-SD under the JACK client name unless bound to loopback \
            (--no-advertise: never), and the web page lists the other racks DNS-SD shows \
            (--no-browse: it does not). Stop with Ctrl-C.
            """)

    @Option(help: "JACK client name (JACK renames it if taken; the real name is printed).")
    var name = "rack"
    @Option(name: .customLong("osc-port"), help: "UDP port for OSC (default \(OSCDefaults.port), or one the system chooses if \(OSCDefaults.port) is taken; 0: the system chooses; the port is printed).")
    var oscPort: UInt16?
    @Option(name: .customLong("osc-host"), help: "Address to bind OSC to. Anything but loopback exposes the rack to the network.")
    var oscHost = OSCDefaults.host
    @Option(name: .customLong("allow"), help: ArgumentHelp("Only obey OSC, HTTP and WebSocket clients from this address or CIDR range (repeatable; loopback only if listed; others are dropped without a reply).", valueName: "ADDR"))
    var allow: [String] = []
    @Option(help: "Audio file to play (wav, flac, ogg; resampled to the JACK rate).")
    var file: String?
    @Option(parsing: .unconditional, help: "Preset to start with (name or number; user presets are negative).", completion: Completions.presets)
    var preset: String?
    @Flag(help: "Connect outputs to the physical playback ports and inputs from capture.")
    var connect = false
    @Option(help: "Write the state at the start and every applied change to this automation file (rack render FILE OUT --automation IT replays the session).")
    var record: String?
    @Flag(name: .customLong("no-midi"), help: "Leave out the MIDI ports (midi_in, midi_out).")
    var noMIDI = false
    @Option(name: .customLong("midi-channel"), help: "Obey MIDI on this channel only (1…16; omni by default).")
    var midiChannel: Int?
    @Option(name: .customLong("http-port"), help: "TCP port for OSCQuery, its WebSocket and the web page at /ui/ (default 8001, or one the system chooses if 8001 is taken; 0: the system chooses; the URL is printed).")
    var httpPort: UInt16?
    @Option(name: .customLong("http-host"), help: "Address to bind HTTP to. Anything but loopback exposes the rack to the network.")
    var httpHost = OSCDefaults.host
    @Flag(name: .customLong("no-advertise"), help: "Do not advertise OSCQuery (_oscjson._tcp) and OSC (_osc._udp) over DNS-SD through Avahi (advertised by default when an Avahi daemon runs and the socket is not bound to loopback).")
    var noAdvertise = false
    @Flag(name: .customLong("no-browse"), help: "Do not browse DNS-SD for the other racks on the network (the web page's \"Racks in this studio\"; browsed by default when an Avahi daemon runs).")
    var noBrowse = false
    @Option(name: .customLong("media-dir"), help: ArgumentHelp("Senders other than 127.0.0.1 may load files from this directory only (repeatable).", valueName: "DIR"))
    var mediaDirs: [String] = []
    @Option(name: .customLong("subscription-lease"), help: .hidden, transform: decimalArgument)
    var subscriptionLease: Double = ExposurePolicy.defaultLeaseSeconds

    func validate() throws {
        for a in allow where AddressRange(a) == nil { throw ValidationError("--allow '\(a)' is not an IPv4 address or CIDR range") }
        if OSCEndpoint(host: oscHost, port: 0) == nil { throw ValidationError("--osc-host '\(oscHost)' is not an IPv4 address") }
        if let problem = ClientName.problem(name) { throw ValidationError("--name \(problem)") }
        if let c = midiChannel, !(1...16).contains(c) { throw ValidationError("--midi-channel \(c) is not a MIDI channel (1…16)") }
        if OSCEndpoint(host: httpHost, port: 0) == nil { throw ValidationError("--http-host '\(httpHost)' is not an IPv4 address") }
        for d in mediaDirs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: d, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--media-dir '\(d)' is not a directory")
            }
        }
        guard subscriptionLease.isFinite, subscriptionLease > 0 else { throw ValidationError("--subscription-lease must be positive seconds") }
    }

    func run() throws {
        // Stop requests are caught from the start: a SIGTERM right after the ready lines
        // ends the rack cleanly.
        rack_signals_install()
        try runReportingErrors {
            let presets = PresetStore.standard()
            reportPresetProblems(presets)
            let start = try startingState(presets: presets)
            let state = start.state
            let presetName = start.presetName
            // OSC first: under a session manager the session decides the client name and state.
            let socket = try bindOSCSocket()
            // JACK's notifications and the stop signals wake the control loop through it.
            rack_wake_install(socket.wakeDescriptor)
            defer { rack_wake_install(-1) }
            let (clientName, session, nsm) = try joinSession(socket: socket)
            let started: (controller: RackController, driver: JackDriver, bridge: HTTPBridge)
            do {
                started = try startRack(name: clientName, session: session, nsm: nsm, state: state, preset: presetName,
                                        presets: presets, socket: socket)
            } catch {
                // The session manager hears why the open failed (JACK, the file, the recording).
                nsm?.replyOpen(socket: socket, error: "\(error)")
                throw error
            }
            nsm?.replyOpen(socket: socket, error: nil)
            try serve(started.controller, driver: started.driver, bridge: started.bridge, socket: socket, preset: presetName)
        }
    }

    /// Joins JACK as `name` and starts the controller from `state` (or the session's), the
    /// first file attached before the engine runs.
    private func startRack(name clientName: String, session: SessionState?, nsm: NSMClient?, state start: RackState,
                           preset presetName: String, presets: PresetStore,
                           socket: UDPSocket) throws -> (controller: RackController, driver: JackDriver, bridge: HTTPBridge) {
        let state = session?.state ?? start
        if let record { try SessionRecorder.prepare(path: record) }   // 73 now, not a warning later
        let path = try playerPath(session: session)

        let midi = noMIDI ? nil : loadMIDI(sessionPath: nsm?.sessionPath)
        let initial = state
        var controller: RackController?
        var firstStream: PlayerStream?
        var openError: Error?
        // Lines the driver has for the user; during the first join a rate the engine cannot
        // serve ends the command instead (one line, 69), so they are held back until then.
        var joined = false
        let driver = try JackDriver(name: clientName, midi: midi?.link, warn: { line in if joined { warn(messagePrefix + line) } }) { rate in
            // A new engine (first join, or a server back at another rate) starts from the
            // targets the rack has now.
            let engine = Engine(sampleRate: rate, maxFrames: liveMaxFrames, state: controller?.targets ?? initial)
            if controller == nil {
                // The first file is attached before JACK runs the engine: it starts at
                // sample 0, as in an offline render, so a --record replays exactly.
                do {
                    let s = try PlayerStream(path: path, sampleRate: rate, startSeconds: session?.playerSeconds ?? 0, loop: true,
                                             failed: { [socket] in socket.wake() })
                    engine.attachPlayer(s.ring, playing: true)
                    firstStream = s
                } catch { openError = error }
            }
            return engine
        }
        if let openError { throw openError }
        joined = true
        try checkJoined(driver)

        let bridge = HTTPBridge(socket: socket, state: LiveState(listening: { [socket] in socket.wake() }))
        let c = makeController(bridge: bridge, driver: driver, presets: presets, state: state, presetName: presetName)
        controller = c
        c.log = { warn(messagePrefix + $0) }
        c.wake = { [socket] in socket.wake() }
        c.ownEndpoints = OwnEndpoints(socket: socket.local)
        c.meterObserved = { [unowned bridge] in bridge.state.isListened(OSCCommandDeclaration.meter.address) }
        driver.engineReplaced = { [unowned c] _ in c.engineReplaced() }
        c.nsm = nsm
        c.midi = midi
        if let firstStream { c.adoptPlayer(firstStream) }
        firstStream = nil   // the controller owns it now (and frees it when it is retired)
        return (c, driver, bridge)
    }

    /// The state and preset name `--preset` starts from (the parameter table's defaults and ""
    /// without it).
    private func startingState(presets: PresetStore) throws -> (state: RackState, presetName: String) {
        guard let p = preset else { return (RackState(), "") }
        let found = try lookUpPreset(p, in: presets)
        return (found.state, found.name)
    }

    /// The rack's controller over `driver`, answering through `bridge`, with the options' access
    /// rules, recording and exposure policy.
    private func makeController(bridge: HTTPBridge, driver: JackDriver, presets: PresetStore, state: RackState,
                                presetName: String) -> RackController {
        RackController(replier: bridge, host: driver, presets: presets, initial: state,
                       initialPreset: presetName, allow: allow.compactMap(AddressRange.init), recordPath: record,
                       policy: ExposurePolicy(mediaDirectories: mediaDirs, leaseSeconds: subscriptionLease))
    }

    /// Under a session manager (`NSM_URL`): announces rack, and returns the client name it
    /// gives, the saved session state (if any) and the client; else `--name` and nothing. An
    /// open rack cannot take (its path, its client id, its state file) is answered with
    /// `/error` to the server and ends the command (65, or the state file's status).
    private func joinSession(socket: UDPSocket) throws -> (clientName: String, session: SessionState?, nsm: NSMClient?) {
        guard let url = ProcessInfo.processInfo.environment["NSM_URL"] else { return (name, nil, nil) }
        guard let client = NSMClient(url: url) else { throw RackError(.usage, "NSM_URL '\(url)' is not osc.udp://HOST:PORT/") }
        guard let open = client.announce(socket: socket, executable: CommandLine.arguments.first ?? "rack") else {
            throw RackError(.unavailable, "the session manager at \(url) did not open a session")
        }
        let session: SessionState?
        do { session = try client.take(open) } catch {
            client.replyOpen(socket: socket, error: error.message)
            throw error
        }
        say("rack: session '\(open.displayName)' opened at \(open.sessionPath)")
        return (open.clientID, session, client)
    }

    /// The file to play: the session's, else `--file` (refused now if it is no audio file,
    /// before joining JACK), else the demo loop, written out.
    private func playerPath(session: SessionState?) throws -> String {
        if let p = session?.playerPath, FileManager.default.fileExists(atPath: p) { return p }
        if let file {
            _ = try AudioFileReader(path: file).info
            return file
        }
        let loop = try DemoLoop.defaultPath()
        do { return try DemoLoop.write(to: loop) } catch {
            throw RackError(.cannotCreate, "cannot write the demo loop to '\(loop)': \(error)")
        }
    }

    /// After the first join: a rate the engine cannot serve ends the command (69); otherwise
    /// the ready lines.
    private func checkJoined(_ driver: JackDriver) throws {
        if driver.unsupportedRate != nil, let problem = EngineFormat.problem(sampleRate: driver.sampleRate) {
            driver.close()
            throw RackError(.unavailable, "the JACK server: \(problem)")
        }
        driver.log = { say(messagePrefix + $0) }
        if !driver.waitForFirstCycle(timeout: 5) {
            warn("rack: warning: JACK has not run rack's process callback within 5 s of activation")
        }
        say("rack: joined JACK server as '\(driver.clientName)' (\(Int(driver.sampleRate)) Hz, \(driver.bufferSize) frames)")
        say("rack: the JACK server is \(driver.server.description)")
    }

    /// Connects, starts HTTP and advertising, serves until a stop is asked for, then closes
    /// everything in order.
    private func serve(_ c: RackController, driver: JackDriver, bridge: HTTPBridge, socket: UDPSocket, preset: String) throws {
        if connect { for line in driver.connectPhysical() { say("rack: connected \(line)") } }
        let http = try startHTTP(bridge: bridge, controller: c, driver: driver, preset: preset, osc: socket.local)
        say("rack: OSCQuery on http://\(httpHost):\(http.port)/ (web page: http://\(httpHost):\(http.port)/ui/)")
        say("rack: OSC on osc.udp://\(socket.local.host):\(socket.local.port)/")
        if oscHost != "127.0.0.1" && allow.isEmpty {
            warn("rack: warning: OSC is reachable from \(oscHost); anyone who can send to it controls the rack (see --allow)")
        }
        let studio = browseStudio(into: bridge.state.studio, ownName: advertisesHTTP ? driver.clientName : nil)
        let advertiser = noAdvertise ? nil : advertise(name: driver.clientName, httpPort: http.port, osc: socket.local, studio: studio)
        c.serve(from: socket, shouldStop: { rack_signals_stop_requested() != 0 }, housekeeping: { now in
            driver.poll(now: now)
            c.pollMIDI()
            bridge.drain(into: c)
            let status = bridge.publishPeriodic(now: now, controller: c, driver: driver)
            // MIDI input arrives on the render thread, which never wakes anyone: while midi_in
            // has a connection the loop looks for what it made at a modest rate, else never.
            let midi = driver.midiInputConnected ? now + ControllerTuning.midiLookSeconds : nil
            return [driver.nextDeadline(now: now), status, midi].compactMap { $0 }.min()
        })
        c.endRecording()
        advertiser?.stop()
        studio?.stop()
        http.stop()
        c.shutDown()
        driver.close()
        c.flushRecording()
        // Already said on stderr by the controller's log: only the exit status is left.
        if let lost = c.recordingFailure { throw ExitCode(lost.status.rawValue) }
    }

    /// The MIDI map: the session's under NSM when it has one, else the user's; a map file that
    /// cannot be used is reported in one line and the defaults are used.
    private func loadMIDI(sessionPath: String?) -> MIDIControl {
        let user = MIDIMapFile.defaultPath()
        let path = sessionPath.map { $0 + "/midi.json" } ?? user
        var map = MIDIMap.defaults
        let source = sessionPath != nil && !FileManager.default.fileExists(atPath: path ?? "") ? user : path
        if let source {
            do { map = try MIDIMapFile.load(path: source) } catch {
                warn("rack: \(error.message); using the default MIDI map")
            }
        }
        return MIDIControl(link: MIDILink(map: map, channelFilter: midiChannel ?? 0), path: path)
    }
}
