import RackEngine

/// The scheduled (timetagged) events in flight to the render thread, by who posted them: per
/// sender (address, port and transport: what `/rack/schedule/clear` drops), per address and
/// for remote addresses together (what `ControllerTuning.scheduleShare` bounds, so a remote
/// sender cannot take the slots of 127.0.0.1 and `--allow`ed peers).
struct ScheduleShares {
    /// Events in flight by sender; a sender with none is not kept.
    private(set) var bySender: [EventOwner: Int] = [:]
    /// Events in flight by address, and whether the address is trusted (127.0.0.1 or
    /// `--allow`ed: it does not count against the remote share).
    private var byAddress: [UInt32: (count: Int, trusted: Bool)] = [:]
    /// Events in flight of remote addresses together.
    private(set) var remote = 0

    /// Events in flight of `address`.
    func held(byAddress address: UInt32) -> Int { byAddress[address]?.count ?? 0 }

    /// Events in flight of `sender`.
    func held(by sender: EventOwner) -> Int { bySender[sender] ?? 0 }

    mutating func add(_ count: Int, by sender: EventOwner, trusted: Bool) {
        bySender[sender, default: 0] += count
        byAddress[sender.address, default: (0, trusted)].count += count
        if !trusted { remote += count }
    }

    mutating func remove(_ count: Int, by sender: EventOwner) {
        guard count > 0, let mine = bySender[sender], let address = byAddress[sender.address] else { return }
        let n = min(count, mine)
        bySender[sender] = mine == n ? nil : mine - n
        byAddress[sender.address] = address.count == n ? nil : (address.count - n, address.trusted)
        if !address.trusted { remote -= n }
    }
}
