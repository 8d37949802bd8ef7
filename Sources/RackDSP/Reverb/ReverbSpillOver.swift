/// The slot bookkeeping of `Reverb`'s room changes (see `ReverbSlot` for the life of a slot).
/// Every function here costs O(slots) or one bounded clearing step.
extension Reverb {
    /// Starts the input crossfade to `room` (in its short form when `short`,
    /// `ReverbShortForm.swift`): a slot still ringing with that room in that form takes the
    /// input again, else a clean slot gets the room. False when no slot is free yet (a slot
    /// is being cut or cleared; the caller retries at a later group).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func startChange(to room: Room, short: Bool, frames: Int, _ slots: UnsafeMutablePointer<ReverbSlot>) -> Bool {
        guard table != nil else { return false }
        var target = -1
        for s in 0..<slotCount where s != live {
            if slots[s].isIn(.spilling) && slots[s].core.room.index == room.index
                && slots[s].core.coefficients.isShortForm == short { target = s }
        }
        if target < 0 {
            for s in 0..<slotCount where slots[s].isIn(.clean) {
                target = s
                break
            }
        }
        guard target >= 0 else {
            makeSpare(slots)
            return false
        }
        // A clean slot gets the room; a tail taking the input again gets its own decay back.
        let incoming = coefficients(of: room, short: short)
        slots[target].core.load(incoming, room: room)
        slots[target].phase = .live
        slots[target].holdGroups = 0
        // The old tail takes a longer new room's decay (see `SpillOverTuning.matchedFadeOutSeconds`),
        // after bridging the new room's late onset. (Not a short form's tail: the matching and
        // bridging tables hold the rooms' own networks.)
        let matched = decaySeconds(room) > decaySeconds(slots[live].core.room)
            && !slots[live].core.coefficients.isShortForm
        if matched {
            let fadeOut = min(frames, matchedFadeOutFrames)
            let bridge = bridgeFrames(old: slots[live].core.coefficients, new: incoming,
                                      fadeIn: frames, fadeOut: fadeOut)
            if bridge > 0, let holdTable {
                slots[live].core.load(holdTable[slots[live].core.room.index], room: slots[live].core.room)
                slots[live].holdGroups = (bridge &+ 7) &>> 3
                slots[live].holdRoom = room
            } else {
                matchDecay(of: live, to: room, slots)
            }
        }
        slots[live].phase = .spilling
        slots[live].quietGroups = 0
        slots[live].spillOrder = spillCount
        spillCount &+= 1
        fadingOut = .slot(live)
        live = target
        fadeLength = frames
        fadeOutLength = matched ? min(frames, matchedFadeOutFrames) : frames
        fadeDone = 0
        makeSpare(slots)
        return true
    }

    /// How long (samples) an old tail bridges a longer new room's late onset: the mean delay of
    /// the new room's late input (half its input fade-in, its pre-delay, its input diffusers:
    /// an allpass delays energy by its own delay on average) less that of the old room's, whose
    /// input fades out over `fadeOut`. 0 or less: no bridge.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func bridgeFrames(old: ReverbCoefficients, new: ReverbCoefficients, fadeIn: Int, fadeOut: Int) -> Int {
        let newDelay = fadeIn &>> 1 &+ new.preDelay &+ Int(new.inputDiffuserDelay.wrappedSum()) &>> 1
        let oldDelay = fadeOut &>> 1 &+ old.preDelay &+ Int(old.inputDiffuserDelay.wrappedSum()) &>> 1
        return newDelay &- oldDelay
    }

    /// A bridging tail counts one group down; at the end it takes its new room's decay.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func holdStep(_ s: Int, _ slots: UnsafeMutablePointer<ReverbSlot>) {
        slots[s].holdGroups &-= 1
        if slots[s].holdGroups == 0 { matchDecay(of: s, to: slots[s].holdRoom, slots) }
    }

    /// The target decay time of `room` (s), from the coefficient table's order of rooms.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func decaySeconds(_ room: Room) -> Double { decayTimes?[room.index] ?? 0 }

    /// Slot `s` keeps its room's network and loudness but takes `room`'s decay (see
    /// `decayMatchingTable`).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func matchDecay(of s: Int, to room: Room, _ slots: UnsafeMutablePointer<ReverbSlot>) {
        guard let decayTable else { return }
        let from = slots[s].core.room
        slots[s].core.load(decayTable[from.index &* roomCount &+ room.index], room: from)
    }

    /// Keeps a slot on its way to clean: when none is clean, cut or clearing, the oldest tail
    /// that is not fading out right now is cut (20 ms fade, then cleared).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func makeSpare(_ slots: UnsafeMutablePointer<ReverbSlot>) {
        var oldest: Int? = nil
        for s in 0..<slotCount {
            switch slots[s].phase {
            case .clean, .cutting, .clearing: return
            case .spilling:
                guard !fadingOut.isSlot(s) else { continue }
                if let o = oldest, slots[o].spillOrder <= slots[s].spillOrder { continue }
                oldest = s
            case .live: break
            }
        }
        if let oldest {
            slots[oldest].phase = .cutting
            slots[oldest].cutDone = 0
        }
    }

    /// The slot stops sounding and is cleared in steps from the next group on.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func startClearing(_ s: Int, _ slots: UnsafeMutablePointer<ReverbSlot>) {
        slots[s].phase = .clearing
        slots[s].holdGroups = 0
        slots[s].clearCursor = 0
    }

    /// One bounded step of clearing slot `s`: `clearStepFloats` floats of its network's delay
    /// memory, then of its history; clean when all is done.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func clearStep(_ s: Int, _ slots: UnsafeMutablePointer<ReverbSlot>) {
        let coreFloats = slots[s].core.stateFloats
        var cursor = slots[s].clearCursor
        var budget = clearStepFloats
        if cursor < coreFloats {
            let n = min(budget, coreFloats - cursor)
            slots[s].core.clear(from: cursor, count: n)
            cursor += n
            budget -= n
        }
        if budget > 0, cursor >= coreFloats, let history = slots[s].history {
            let h = cursor - coreFloats
            let n = min(budget, historyFloats - h)
            (history + h).update(repeating: 0, count: n)
            cursor += n
        }
        slots[s].clearCursor = cursor
        if cursor >= coreFloats + historyFloats {
            slots[s].phase = .clean
            slots[s].touched = false
        }
    }

    /// Clears slot `s` whole at once and makes it clean (setup and faults only).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func clearAtOnce(_ s: Int, _ slots: UnsafeMutablePointer<ReverbSlot>) {
        if slots[s].touched {
            slots[s].core.clearAll()
            slots[s].history?.update(repeating: 0, count: historyFloats)
        } else {
            slots[s].core.clearFilterStates()
        }
        slots[s].touched = false
        slots[s].phase = .clean
        slots[s].holdGroups = 0
        slots[s].quietGroups = 0
        slots[s].cutDone = 0
        slots[s].clearCursor = 0
    }

    /// A slot whose output went non-finite: its whole state is cleared at once (a fault, not
    /// a room change) and counted; the heard slot stays heard, in its room, from silence; any
    /// other slot is dropped.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func recover(_ s: Int, _ slots: UnsafeMutablePointer<ReverbSlot>) {
        clearAtOnce(s, slots)
        if s == live { slots[s].phase = .live }
        faultResets &+= 1
    }

    /// The decay-matching coefficients (not realtime; from `prepare`): for every pair of rooms
    /// where `to` decays more slowly than `from`, `from`'s room with `to`'s decay — mid-band
    /// T60 (target × calibration), low/mid ratio, crossover and damping frequency — made by the
    /// reverb's own design maths, keeping `from`'s delays (the same room size, so the same
    /// primes) and `from`'s output scale (so the tail's level does not jump). Other pairs hold
    /// `from`'s own coefficients.
    static func decayMatchingTable(_ table: UnsafeMutablePointer<ReverbCoefficients>,
                                   sampleRate: Double) -> UniqueBuffer<ReverbCoefficients> {
        let rooms = Room.allCases
        let n = rooms.count
        return UniqueBuffer(count: n * n) { i in
            let from = rooms[i / n], to = rooms[i % n]
            var c = table[from.index]
            if to.targetDecaySeconds > from.targetDecaySeconds {
                var d = from.definition
                let t = to.definition
                d.targetDecaySeconds = t.targetDecaySeconds
                d.calibration = t.calibration
                d.lowRatio = t.lowRatio
                d.crossover = t.crossover
                d.halfDecayHz = t.halfDecayHz
                let matched = ReverbCoefficients(definition: d, sampleRate: sampleRate)
                if matched.lineDelay == c.lineDelay && matched.diffuserDelay == c.diffuserDelay {
                    c = matched
                    c.outputScale = table[from.index].outputScale
                }
            }
            return c
        }
    }

    /// The bridging coefficients (not realtime; from `prepare`): each room with a mid-band and
    /// low decay of `SpillOverTuning.holdDecaySeconds` and its own delays, damping frequency,
    /// crossover and output scale (so the tail's level does not jump).
    static func holdingTable(_ table: UnsafeMutablePointer<ReverbCoefficients>,
                             sampleRate: Double) -> UniqueBuffer<ReverbCoefficients> {
        let rooms = Room.allCases
        return UniqueBuffer(count: rooms.count) { i in
            let room = rooms[i]
            var d = room.definition
            d.targetDecaySeconds = SpillOverTuning.holdDecaySeconds
            d.calibration = 1
            d.lowRatio = 1
            var c = ReverbCoefficients(definition: d, sampleRate: sampleRate)
            c.outputScale = table[room.index].outputScale
            if c.lineDelay != table[room.index].lineDelay || c.diffuserDelay != table[room.index].diffuserDelay {
                c = table[room.index]
            }
            return c
        }
    }
}
