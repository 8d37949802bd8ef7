import CJack
import Foundation

/// The connections rack wants: remembered across server restarts, made when the peers' ports
/// appear, dropped only when someone undoes them while both ends exist.
extension JackDriver {
    private func port(_ i: Int) -> OpaquePointer? { context.flatMap { rack_jack_port($0, Int32(i)) } }

    /// Our own port's full name as our JACK library knows it (what jack_connect takes).
    private func ownName(_ i: Int) -> String {
        if let p = port(i), let n = jack_port_name(p) { return String(cString: n) }
        return clientName + ":" + Self.portNames[i]
    }

    private func currentConnections() -> [String: Set<String>] {
        var now: [String: Set<String>] = [:]
        for (i, name) in Self.portNames.enumerated() {
            guard let p = port(i), let list = jack_port_get_connections(p) else { now[name] = []; continue }
            var peers: Set<String> = []
            var k = 0
            while let s = list[k] { peers.insert(String(cString: s)); k += 1 }
            jack_free(list)
            now[name] = peers
        }
        return now
    }

    private func exists(_ port: String) -> Bool { client.map { jack_port_by_name($0, port) != nil } ?? false }

    /// Looks at the connections: what is made is wanted; a wanted connection seen made at the
    /// last look and missing now, while both ends exist, is being undone by someone (forgotten
    /// once that has lasted a second). Not when a port went away less than `portChurnSeconds`
    /// ago: then the peer may have been removed and made again under the same name (WirePlumber
    /// re-creates a sink's ports when it configures it, right after a server restart; jackd2's
    /// netjack2 driver its `system` ports when it joins its master again), which takes its links
    /// along without anyone undoing them; `connectWanted` makes it again.
    func rememberConnections(now: Double) {
        guard isRunning, let context else { return }
        let gone = rack_jack_ports_unregistered(context)   // before the connections: see below
        let current = currentConnections()
        if gone != portsGoneSeen { portsWentAwayAt = now }
        portsGoneSeen = gone
        let portsWentAway = now - portsWentAwayAt < Self.portChurnSeconds
        for name in Self.portNames {
            let here = current[name] ?? []
            for peer in here.sorted() { want(name, peer) }
            for peer in wanted[name] ?? [] {
                let key = name + "\t" + peer
                if here.contains(peer) || portsWentAway { undoneSince[key] = nil; continue }
                if let since = undoneSince[key] {
                    if !exists(peer) {
                        undoneSince[key] = nil            // the peer went away: wait for it
                    } else if now - since >= Self.undoneSeconds {
                        undoneSince[key] = nil            // undone by someone: no longer wanted
                        wanted[name]?.removeAll { $0 == peer }
                    }
                } else if seen[name]?.contains(peer) == true && exists(peer) {
                    undoneSince[key] = now
                }
            }
        }
        seen = current
    }

    /// How long after a port went away a missing link is not taken for one someone undid. The
    /// links a client reads can trail the ports' registrations: a netjack2 driver that lost its
    /// master and found it again at once removed and made its ports again between two looks,
    /// and the next look (within a few periods) still showed the old link, the one after that
    /// none, with the port there; counted from that second look, the link was forgotten a second
    /// later and never made again. A second covers that lag many times over; the price is that
    /// a link someone undoes within a second of any port going away is made again.
    static let portChurnSeconds = 1.0

    private func want(_ name: String, _ peer: String) {
        if !(wanted[name] ?? []).contains(peer) { wanted[name, default: []].append(peer) }
    }

    /// True when a wanted connection is not made (and not being undone).
    var hasMissingWanted: Bool {
        wanted.contains { name, peers in
            peers.contains { !(seen[name] ?? []).contains($0) && undoneSince[name + "\t" + $0] == nil }
        }
    }

    /// Makes every wanted connection whose peer port exists now, except those seen made in this
    /// join and undone since (someone disconnected them: `rememberConnections` decides).
    func connectWanted() {
        guard isRunning else { return }
        let current = currentConnections()
        for (i, name) in Self.portNames.enumerated() {
            for peer in wanted[name] ?? [] where !(current[name] ?? []).contains(peer)
                && seen[name]?.contains(peer) != true && undoneSince[name + "\t" + peer] == nil && exists(peer) {
                let ours = ownName(i)
                if Self.isInput(i) { jack_connect(client, peer, ours) } else { jack_connect(client, ours, peer) }
            }
        }
    }

    /// Connects out_1/out_2 to the first physical playback ports, in_1/in_2 from the
    /// first physical capture ports, and midi_in from every physical MIDI capture port. Returns a line per connection made.
    @discardableResult
    public func connectPhysical() -> [String] {
        var made: [String] = []
        func physical(_ flags: UInt, type: String = JACK_DEFAULT_AUDIO_TYPE) -> [String] {
            guard let list = jack_get_ports(client, nil, type, flags) else { return [] }
            var names: [String] = []
            var k = 0
            while let s = list[k] { names.append(String(cString: s)); k += 1 }
            jack_free(list)
            return names
        }
        let playback = physical(UInt(JackPortIsPhysical.rawValue | JackPortIsInput.rawValue))
        let capture = physical(UInt(JackPortIsPhysical.rawValue | JackPortIsOutput.rawValue))
        for (i, peer) in playback.prefix(2).enumerated() {
            let ours = Self.firstOutputIndex + i
            guard jack_connect(client, ownName(ours), peer) == 0 else { continue }
            made.append("\(clientName):\(Self.portNames[ours]) → \(peer)")
            want(Self.portNames[ours], peer)
        }
        for (i, peer) in capture.prefix(2).enumerated() {
            let ours = Self.firstInputIndex + i
            guard jack_connect(client, peer, ownName(ours)) == 0 else { continue }
            made.append("\(peer) → \(clientName):\(Self.portNames[ours])")
            want(Self.portNames[ours], peer)
        }
        // MIDI: every physical capture port (controllers) into midi_in, when rack has one.
        if port(Self.midiInIndex) != nil {
            let controllers = physical(UInt(JackPortIsPhysical.rawValue | JackPortIsOutput.rawValue), type: JACK_DEFAULT_MIDI_TYPE)
            for peer in controllers where jack_connect(client, peer, ownName(Self.midiInIndex)) == 0 {
                made.append("\(peer) → \(clientName):\(Self.portNames[Self.midiInIndex])")
                want(Self.portNames[Self.midiInIndex], peer)
            }
        }
        return made
    }
}
