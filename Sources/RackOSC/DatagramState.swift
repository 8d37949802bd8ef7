import RackEngine

/// What the controller keeps for the datagram being handled (a message or a bundle): the
/// timetags it mapped, the parameters it set, and the costly work it did, counted against the
/// caps per datagram (and, for listings and saves, per second). `begin` starts a new one.
struct DatagramState {
    /// Timetags of the datagram, mapped to engine times once each (so every message of a
    /// bundle lands on the same sample).
    var timeMappings: [UInt64: Result<EventTime, Reason>] = [:]
    /// Parameters set by the datagram so far (the room rule leaves them alone).
    var parametersSet: Set<ParameterID> = []
    /// Preset files written while handling the datagram.
    var presetWrites = 0
    /// Media listings (each may walk the media directories), per datagram and per second.
    var mediaListings = WorkCap(perDatagram: ControllerTuning.mediaListingsPerPacket, perSecond: ControllerTuning.mediaListingsPerSecond)
    /// Session saves, per datagram and per second.
    var sessionSaves = WorkCap(perDatagram: ControllerTuning.sessionSavesPerPacket, perSecond: ControllerTuning.sessionSavesPerSecond)

    /// A new datagram: forgets the mappings, the parameters set and the writes; the caps' windows
    /// of a second go on.
    mutating func begin() {
        if !timeMappings.isEmpty { timeMappings.removeAll(keepingCapacity: true) }
        if !parametersSet.isEmpty { parametersSet.removeAll(keepingCapacity: true) }
        presetWrites = 0
        mediaListings.beginDatagram()
        sessionSaves.beginDatagram()
    }
}
