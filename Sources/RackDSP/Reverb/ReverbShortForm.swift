/// A room's short form: the late network a large room runs when its `decay` is set shorter than
/// its own loops can carry.
///
/// Why: a loop of delay τ loses 60·τ/T60 dB a pass. Cathedral's loops average 0.29 s, so at a
/// decay of 0.3 s each pass lost ~58 dB: the tail was the first few passes of a sparse network
/// (ringing +16.6 dB at 568 Hz, echo density 0.66 at 100 ms), and the lossless input diffusers
/// (its longest 23 ms, ringing ~19 of its delays) kept T30 above the setting below 0.7 s. No
/// absorption can fix that: the network itself is too large for the decay.
///
/// Design (the simplest that meets the goal): every room larger than `ReverbTuning.shortFormSize`
/// has one second network, its short form: the same room definition (early pattern, pre-delay,
/// damping, low/mid ratio and crossover, diffusion, calibration) with smallRoom's loop size and
/// at most smallRoom's input diffusers (`RoomDefinition.shortForm`). Below
/// `shortFormBelowSeconds` (a pass round an average own loop losing more than
/// `ReverbTuning.shortFormLossPerPassDecibels`) the room runs its short form, above
/// `ReverbTuning.shortFormHysteresis` times that its own network again. The switch is a room
/// change to the same room's other form (`Reverb.followDecay`): the input crossfades (equal
/// power, `ReverbTuning.shortFormCrossfadeSeconds`) to a clean network while the old one rings
/// out, so a `decay` ramp across the threshold neither clicks nor sweeps pitch (no delay moves
/// inside a running loop). A network nothing has sounded through yet (after a reset or at a
/// room change) takes the wanted form at once. A frozen tail keeps its network. The other
/// form's tail goes on following the shape while it rings out (`shapeFormTails`): it is the
/// same room, so a `decay` ramp down across the threshold takes the sound fed before the switch
/// down with it, as one network would, instead of leaving it at the switching decay.
///
/// The short form has its own decay correction (`RoomDefinition.shortFormDecayCorrection`:
/// its loops lose less per pass, so its mid-band over broadband ratio differs) and its output
/// is scaled so that at the switching decay its late energy equals the room's own network's
/// (`loudnessScale` at that decay): the crossfade does not jump in level. Rooms at their own
/// values never reach the threshold (every room's own decay is over 2.5 times its switching
/// decay, mediumRoom's the closest): they run their own network, byte for byte as designed.
extension RoomDefinition {
    /// Mean loop delay (s) of the room's eight lines (`ReverbTuning.loopDelaySeconds` × size).
    var meanLoopSeconds: Double {
        ReverbTuning.loopDelaySeconds.reduce(0, +) / Double(ReverbTuning.loopDelaySeconds.count) * size
    }

    /// The decay (s) below which the room runs its short form: where a pass round its mean loop
    /// loses `ReverbTuning.shortFormLossPerPassDecibels`; 0 for a room no larger than the
    /// short form (smallRoom).
    var shortFormBelowSeconds: Double {
        size > ReverbTuning.shortFormSize ? 60 * meanLoopSeconds / ReverbTuning.shortFormLossPerPassDecibels : 0
    }

    /// The room with smallRoom's loop size and at most smallRoom's input diffusers; everything
    /// else (early pattern, pre-delay, absorption's character, calibration) its own.
    var shortForm: RoomDefinition {
        var d = self
        d.size = min(size, ReverbTuning.shortFormSize)
        d.inputDiffuserScale = min(inputDiffuserScale, ReverbTuning.shortFormInputDiffuserScale)
        return d
    }
}

extension ReverbCoefficients {
    /// The short form of `room` at `fs` Hz, its loudness matched to `own` (the room's own
    /// coefficients at that rate) at the switching decay.
    init(shortFormOf room: Room, sampleRate fs: Double, own: ReverbCoefficients) {
        self.init(definition: room.definition.shortForm, sampleRate: fs)
        isShortForm = true
        shortFormBelowSeconds = own.shortFormBelowSeconds
        decayCorrection = RoomDefinition.shortFormDecayCorrection(room)
        ownDecayCorrection = 1
        dampingCorrection = DampingCorrectionRows(room)
        let switching = own.shortFormBelowSeconds
        outputScale = own.outputScale * loudnessScale(atDecaySeconds: switching)
            / own.loudnessScale(atDecaySeconds: switching)
    }

    /// `loudnessScale` of this network with its absorption for a `decay` of `decaySeconds` at
    /// the room's own damping.
    func loudnessScale(atDecaySeconds decay: Double) -> Float {
        let mid = decay * calibration * (Self.correction(decayCorrection, decaySeconds: decay) / ownDecayCorrection)
        let halfDecayHz: Double? = ownDampingHz >= ReverbShape.dampingRange.upperBound
            ? nil : min(halfDecayPerDamping * ownDampingHz, 0.5 * sampleRate)
        let absorption = LineAbsorption(midDecaySeconds: mid, lowDecaySeconds: mid * lowRatio, halfDecayHz: halfDecayHz,
                                        sampleRate: sampleRate, lineDelay: lineDelay, diffuserDelay: diffuserDelay)
        return Self.loudnessScale(absorption, crossoverCoefficient: Double(lowCoefficient),
                                  diffusion: Double(diffusion), sampleRate: sampleRate)
    }

    /// Whether a room whose switching decay is `below` (s; 0: no short form) should run its
    /// short form at `decaySeconds`, running it now or not (`short`): below the switching
    /// decay, and in it until `ReverbTuning.shortFormHysteresis` times that.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    static func wantsShortForm(decaySeconds: Double, below: Double, short: Bool) -> Bool {
        decaySeconds < (short ? below * ReverbTuning.shortFormHysteresis : below)
    }
}

extension Reverb {
    /// Every room's short form at `sampleRate` (not realtime; from `prepare`), by `Room.index`;
    /// a room without one holds its own coefficients (never used).
    static func shortFormTable(_ table: UnsafeMutablePointer<ReverbCoefficients>,
                               sampleRate: Double) -> UniqueBuffer<ReverbCoefficients> {
        let rooms = Room.allCases
        return UniqueBuffer(count: rooms.count) { i in
            let own = table[rooms[i].index]
            return own.shortFormBelowSeconds > 0 ? ReverbCoefficients(shortFormOf: rooms[i], sampleRate: sampleRate, own: own) : own
        }
    }

    /// The coefficients of `room` in its short form or its own (prepared only: both tables
    /// exist).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func coefficients(of room: Room, short: Bool) -> ReverbCoefficients {
        (short ? shortForms : table).unsafelyUnwrapped[room.index]
    }

    /// Whether a fresh network of `room` should start in its short form for the shape set now.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func startsShort(_ room: Room) -> Bool {
        guard let shape, let table else { return false }
        return ReverbCoefficients.wantsShortForm(decaySeconds: shape.decaySeconds,
                                                 below: table[room.index].shortFormBelowSeconds, short: false)
    }

    /// The heard network follows the set decay into its room's short form and back (see the
    /// notes at the top of this file): at once while nothing has sounded through it, else as a
    /// change to the same room's other form once no crossfade runs. A frozen tail keeps its form.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func followDecay(_ shape: ReverbShape, _ slots: UnsafeMutablePointer<ReverbSlot>) {
        let below = slots[live].core.coefficients.shortFormBelowSeconds
        guard below > 0, !shape.freeze else { return }
        let short = slots[live].core.coefficients.isShortForm
        let wanted = ReverbCoefficients.wantsShortForm(decaySeconds: shape.decaySeconds, below: below, short: short)
        guard wanted != short else { return }
        let room = slots[live].core.room
        if !slots[live].touched {
            slots[live].core.load(coefficients(of: room, short: wanted), room: room)
        } else if fadeLength == 0 {
            _ = startChange(to: room, short: wanted, frames: formCrossfadeFrames, slots)
        }
    }

    /// The heard room's other-form tails (spilling slots of the live slot's room: only a form
    /// change leaves one) take the shape too.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func shapeFormTails(_ shape: ReverbShape, _ slots: UnsafeMutablePointer<ReverbSlot>) {
        let room = slots[live].core.room.index
        for s in 0..<slotCount where s != live && slots[s].isIn(.spilling) && slots[s].core.room.index == room {
            slots[s].core.coefficients.shape(decaySeconds: shape.decaySeconds, dampingHz: shape.dampingHz,
                                             frozen: shape.freeze)
        }
    }
}
