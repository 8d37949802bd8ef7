import Foundation
import RackEngine
import RackHTTP
import RackOSC
import RackWire

/// Joins the HTTP side to the controller, and nothing else: datagrams from WebSockets queue
/// here and are handed to the controller on its own thread (so it stays lock-free), woken at
/// once through the socket it waits on (`UDPSocket.wake`); replies
/// addressed to a WebSocket's sender go back over that socket, all others to UDP; every change
/// the controller tells its subscribers, the meters, the status and the preset list are
/// published to the HTTP side's `LiveState`. The render thread is reached only as before:
/// controller → lock-free queue → engine.
final class HTTPBridge: RackHTTPHost, Replier, @unchecked Sendable {
    /// Datagrams (and WebSocket closes) waiting for the control thread.
    private enum Item {
        case datagram([UInt8], OSCEndpoint, @Sendable ([UInt8]) -> Void)
        case closed(OSCEndpoint)
    }

    let state: LiveState
    private let socket: UDPSocket
    private let inbox = ControlInbox<Item>(capacity: HTTPLimits.controlInboxLength)
    // The rest is touched only on the control thread (`drain`, `send`, `publishPeriodic`): the
    // `@unchecked Sendable` above is for that.
    /// Where replies to a WebSocket's sender go, while it is open.
    private var routes: [OSCEndpoint: @Sendable ([UInt8]) -> Void] = [:]
    private var presetNames: [String] = []
    private var playerState: [LiveValue] = []
    /// When the status is pushed next while a WebSocket listens to it.
    private var statusClock = PushClock(hertz: ControllerTuning.meterHz)
    /// The status as last published, without the values that move in every cycle.
    private var steadyStatus: [LiveValue] = []

    init(socket: UDPSocket, state: LiveState) {
        self.socket = socket
        self.state = state
    }

    // MARK: - From the HTTP side (any thread)

    func submit(datagram: [UInt8], from peer: HTTPPeer, reply: @escaping @Sendable ([UInt8]) -> Void) -> Bool {
        let queued = inbox.offer(.datagram(datagram, peer, reply))
        if queued { socket.wake() }
        return queued
    }

    func disconnected(_ peer: HTTPPeer) {
        inbox.insist(.closed(peer))
        socket.wake()
    }

    // MARK: - On the control thread

    /// Hands every queued datagram to `controller`, as if it had come over UDP from its sender.
    func drain(into controller: RackController) {
        for item in inbox.takeAll() {
            switch item {
            case let .datagram(bytes, from, reply):
                routes[from] = reply
                bytes.withUnsafeBytes { controller.handle(datagram: $0, from: from) }
            case let .closed(endpoint):
                routes[endpoint] = nil
                controller.forget(endpoint)
            }
        }
    }

    /// `Replier`: to a WebSocket endpoint over its socket while it is open (nowhere once it
    /// closed), to a UDP endpoint over UDP. Endpoints carry their transport, so a WebSocket
    /// never gets what a UDP controller of the same address and port asked for, nor the reverse.
    @discardableResult
    func send(_ datagram: [UInt8], to endpoint: OSCEndpoint) -> Bool {
        guard endpoint.transport == .udp else {
            guard let route = routes[endpoint] else { return false }
            route(datagram)
            return true
        }
        return socket.send(datagram, to: endpoint)
    }

    /// What the controller tells subscribers (every record of its change stream, from any
    /// source; the player's failure) and the meters, as OSCQuery values.
    func publish(_ m: OSCMessage) {
        state.publish(m.address, m.arguments.compactMap(Self.liveValue))
    }

    /// The values that are not changes: the status, the preset list (after a save or delete
    /// from anywhere) and the player's state (file, transport, loop), looked at in every pass of
    /// the control loop; the last two are pushed only when they changed. The status is pushed
    /// at the meters' rate (`ControllerTuning.meterHz`, on a `PushClock` of its own) while a
    /// WebSocket listens to it; otherwise when it changed other than in the position and the DSP
    /// load, which move in every cycle (so HTTP's `?VALUE` gives those as of the loop's last
    /// pass). Returns when the next push is due
    /// (nil: none until something changes).
    @discardableResult
    func publishPeriodic(now: Double, controller: RackController, driver: JackDriverStatus) -> Double? {
        let status = Self.status(controller: controller, driver: driver)
        let listened = state.isListened(OSCCommandDeclaration.status.address)
        let steady = Self.steady(status)
        if listened ? statusClock.take(now: now) : steady != steadyStatus {
            steadyStatus = steady
            state.publish(OSCCommandDeclaration.status.address, status)
        }
        let player = controller.playerStateMessage
        let playerValues = player.arguments.compactMap(Self.liveValue)
        if playerValues != playerState {
            playerState = playerValues
            state.publish(player.address, playerValues)
        }
        controller.presets.refreshIfChanged()   // one stat: the page lists another rack's saves too
        let names = controller.presets.all.map(\.name)
        if names != presetNames {
            presetNames = names
            state.setPresetNames(names)
        }
        return listened ? statusClock.due : nil
    }

    /// `/rack/status` as published: rate, period, xruns, DSP load, position, JACK state,
    /// replaced input samples, the player's failure.
    private static func status(controller: RackController, driver: JackDriverStatus) -> [LiveValue] {
        [
            .int(Int(driver.sampleRate)), .int(driver.bufferSize), .int(driver.xruns),
            .float(driver.dspLoadPercent), .float(controller.playerSeconds), .string(driver.stateName),
            .int(driver.engine?.monitor.get(.replacedInputSamples) ?? 0), .string(controller.playerFailure),
        ]
    }

    /// The status without the values that move in every cycle (the DSP load and the position).
    private static func steady(_ status: [LiveValue]) -> [LiveValue] {
        status.enumerated().filter { ![3, 4].contains($0.offset) }.map(\.element)
    }

    /// The values a fresh page sees before the first change (the meters and the status too,
    /// so every readable node has a value from the first request on).
    func publishInitial(controller: RackController, preset: String, driver: JackDriverStatus) {
        state.publish(OSCCommandDeclaration.meter.address, [.float(-120), .float(-120), .float(-120), .float(-120), .float(0), .int(0), .int(0)])
        publishPeriodic(now: .infinity, controller: controller, driver: driver)
        statusClock.restart()
        for spec in Parameters.all { state.publish(spec, value: controller.targets[spec.id]) }
        state.publish(OSCCommandDeclaration.presetRecall.address, [.string(preset)])
        state.publish(OSCCommandDeclaration.version.address, [.string(RackController.namespaceVersion)])
        presetNames = controller.presets.all.map(\.name)
        state.setPresetNames(presetNames)
    }

    static func liveValue(_ v: OSCValue) -> LiveValue? {
        switch v {
        // A float as its shortest decimal (0.89, not 0.8900941610336304) in JSON.
        case let .float(f): .float(Double(f.description) ?? Double(f))
        case let .double(d): .float(d)
        case let .int(i): .int(Int(i))
        case let .int64(i): .int(Int(i))
        case let .string(s): .string(s)
        default: nil
        }
    }
}

/// What the status push needs from the JACK driver.
protocol JackDriverStatus {
    var sampleRate: Double { get }
    var bufferSize: Int { get }
    var xruns: Int { get }
    var dspLoadPercent: Double { get }
    var stateName: String { get }
    var engine: Engine? { get }
}
