import RackEngine
import RackWire

extension EventOwner {
    /// The sender `endpoint` as the owner of what it schedules.
    init(_ endpoint: OSCEndpoint) {
        self.init(address: endpoint.address, port: endpoint.port, isWebSocket: endpoint.transport == .webSocket)
    }
}

extension OSCEndpoint {
    /// The sender that posted events as `owner`.
    init(_ owner: EventOwner) {
        self.init(address: owner.address, port: owner.port, transport: owner.isWebSocket ? .webSocket : .udp)
    }
}

/// `/rack/schedule/clear` → `/rack/schedule/cleared i:count`: the sender's timetagged changes
/// still waiting for their time are dropped, and no one else's. The render thread drops them
/// (`EngineAction.clearScheduled`) and says how many; the answer follows its echo.
extension RackController {
    /// The answer to `/rack/schedule/clear`.
    static let scheduleClearedAddress = "/rack/schedule/cleared"

    func clearSchedule(_ r: Request) throws(Reason) {
        let owner = EventOwner(r.from)
        // Nothing of the sender waits, or no server runs (its rejoin drops every scheduled event).
        guard engineLinked, let engine, ledger.shares.held(by: owner) > 0 else {
            return scheduleCleared(0, for: owner)
        }
        guard engine.post(EngineEvent(sampleTime: EngineEvent.immediately, .clearScheduled(owner, droppedEvents: 0))) else {
            throw .busy
        }
        ledger.postedClear()
        awaitEchoes()
    }

    /// The render thread dropped `count` scheduled events of `owner`.
    func scheduleCleared(_ count: Int, for owner: EventOwner) {
        reply(OSCMessage(Self.scheduleClearedAddress, [.int(Int32(clamping: count))]), to: OSCEndpoint(owner))
    }
}
