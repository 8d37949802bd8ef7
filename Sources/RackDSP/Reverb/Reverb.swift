/// Stereo reverb: an 8-line feedback delay network (FDN) in the style of zita-rev1, with room
/// changes that spill over. The public type the engine uses; the network itself is `ReverbCore`
/// (its design maths: `ReverbCoefficients`; its constants: `ReverbTuning`; the rooms:
/// `RoomDefinition.table`).
///
/// Groups: the network runs in groups of 8 samples (see `ReverbCore`); a group's output is
/// computed when its first input sample arrives (it does not depend on that group's input) and
/// handed out sample by sample, so the result does not depend on how the caller splits its
/// blocks, and there is no added latency. Input samples below `ReverbTuning.inputFlush` (1e-30)
/// in magnitude are flushed to 0.
///
/// Room changes (spill-over, as hardware reverbs do): the reverb keeps three networks
/// (`ReverbSlot`), each with its own input history. `setRoom(_:crossfadeFrames:)` crossfades the
/// INPUT from the heard network to one holding the new room, with an equal-power law over the
/// crossfade (g_new = sin(π/2·x), g_old = cos(π/2·x), x from 0 to 1, per sample from the
/// change; `ReverbInputFade.swift`); both outputs are heard at full level, so the old room's
/// tail rings out while the new one builds up. When the new room decays more slowly, the old
/// tail holds (bridges the new room's late onset: its crossfade, pre-delay and input diffusers),
/// then takes its decay (as a running reverb's tail does when its decay time is turned up), and
/// its input fades out within 10 ms: the tail then holds the wet level while the new, longer
/// room fills, where an output crossfade from a new room started from silence lost ~4 dB for
/// a few tenths of a second (`SpillOverTuning`). A tail ends when it is below −120 dBFS; a
/// third room while two are sounding cuts the older tail over 20 ms. A request made during a
/// running crossfade waits for it (the last request wins); going back to the room still
/// ringing feeds that network again. Each change costs O(slots): networks are cleared in
/// bounded steps per group (`clearStepFloats`), never whole at the change.
///
/// A network whose output goes non-finite (a NaN reached it) resets itself (`faultResets`).
///
/// Realtime: `process`, `reset` and `setRoom` are `@_noLocks`; all buffers and every room's
/// coefficients are made in `prepare`.
///
/// Ownership: noncopyable; what `prepare` allocates is held by `memory` (`ReverbMemory`) and
/// goes with the reverb, or at the next `prepare`. Never use it from two threads at once.
/// (`@unchecked Sendable` so the owner can hand it to the audio thread.)
public struct Reverb: ~Copyable, @unchecked Sendable {
    /// What `prepare` allocated; the pointers below point into it.
    var memory = ReverbMemory()
    /// The networks (`SpillOverTuning.slots`), each with its own input history.
    var slots: UnsafeMutablePointer<ReverbSlot>? = nil
    var slotCount = 0
    /// Length of each history ring (a power of two); the rings all share the write index.
    var historyLength = 0
    /// Index of the next input sample in the history rings (a multiple of 8 at group starts).
    var historyWrite = 0
    /// Position inside the current 8-sample group (0: the next sample starts a group).
    var phase = 0
    /// The current group's output, computed at its start.
    var groupLeft = SIMD8<Float>(repeating: 0)
    var groupRight = SIMD8<Float>(repeating: 0)
    /// `ReverbTuning.inputFlush`, copied (reading a `static let` is a call on the render path).
    var inputFlush: Float = ReverbTuning.inputFlush
    /// Coefficients of every room at the prepared rate, indexed by `Room.index`.
    var table: UnsafeMutablePointer<ReverbCoefficients>? = nil

    /// The heard slot (the one getting the input; during a crossfade, the one fading in).
    var live = 0
    /// The slot whose input fades out during the running crossfade, if any.
    var fadingOut = FadingOut.none
    /// Length of the running input crossfade (samples; 0: none) and how much of it is done.
    var fadeLength = 0
    var fadeDone = 0
    /// Length of the old slot's input fade-out (samples, ≤ `fadeLength`): the whole crossfade,
    /// or `SpillOverTuning.matchedFadeOutSeconds` when its tail takes a longer room's decay.
    var fadeOutLength = 0
    /// `SpillOverTuning.matchedFadeOutSeconds` in samples.
    var matchedFadeOutFrames = 8
    /// A room requested while a crossfade was running (or while no slot was free); it starts
    /// at the first group boundary where it can.
    var pendingRoom: Room? = nil
    var pendingFrames = 0
    /// The room most recently asked for (what `room` reports).
    var requestedRoom: Room = .default
    /// Counter giving each slot that stops being live its place in line.
    var spillCount = 0
    /// `SpillOverTuning` in samples, groups and floats at the prepared rate.
    var cutFrames = 8
    var quietGroupsToEnd = 1
    var silenceLevel: Float = SpillOverTuning.silenceLevel
    /// Floats a clearing slot zeroes per group: all of it within `SpillOverTuning.clearSeconds`.
    var clearStepFloats = 8
    /// Decay matching: at `from.index · rooms + to.index`, room `from`'s network with room
    /// `to`'s decay and `from`'s loudness (filled where `to` decays more slowly).
    var decayTable: UnsafeMutablePointer<ReverbCoefficients>? = nil
    /// Bridging: each room's network with `SpillOverTuning.holdDecaySeconds`, by `Room.index`.
    var holdTable: UnsafeMutablePointer<ReverbCoefficients>? = nil
    var roomCount = 0
    /// Each room's target decay time (s), by `Room.index`.
    var decayTimes: UnsafeMutablePointer<Double>? = nil
    /// Each room's short form (`ReverbShortForm.swift`), by `Room.index`, and the input
    /// crossfade between a room's two forms (samples).
    var shortForms: UnsafeMutablePointer<ReverbCoefficients>? = nil
    var formCrossfadeFrames = 8

    /// The shaping controls set by `setShape` (nil: every room at its own values, as designed).
    var shape: ReverbShape? = nil
    /// A `setShape` not yet taken by the wet stage and the feed (at the next group start).
    var shapeChanged = false
    /// The line the shape follows across the running control segment, if it moves.
    var glide: ReverbShapeGlide? = nil
    /// The wet output's cuts and width.
    var wetStage = ReverbWetStage()
    /// The pre-delay: how far further back every history read reaches (crossfaded changes).
    var predelay = ReverbPredelay()
    /// The input feed's fade for `freeze`: `ReverbShape.freezeFadeSeconds` in samples, where
    /// the fade is (0: not fed … `feedFrames`: fed), and whether it moves towards 0.
    var feedFrames = 8
    var feedPosition = 8
    var feedStopping = false

    /// Times a network's state went non-finite and it reset itself.
    public internal(set) var faultResets = 0

    /// The prepared sample rate (Hz) and largest block (frames); 0 before `prepare`.
    public private(set) var sampleRate: Double = 0
    public private(set) var maxFrames: Int = 0

    public init() {}

    /// Drops `memory` (explicit so that another module, the engine's core, ending a reverb
    /// calls this, which sees `ReverbMemory`'s owners).
    deinit {}

    /// The room most recently set (during a crossfade: the room being faded to).
    public var room: Room { requestedRoom }

    /// The heard network (tests).
    var active: ReverbCore { slots?[live].core ?? ReverbCore() }

    // MARK: Setup (not realtime)

    /// Allocates every buffer for the largest room at this rate; precomputes every room's
    /// coefficients. The only place that allocates. `sampleRate` in Hz, within
    /// `SampleRates.supported`; `maxFrames` is the largest block `process` will get (recorded
    /// only: the reverb needs no per-block scratch). Calling it again re-prepares (the
    /// previous memory goes) and clears all state; the room is kept.
    public mutating func prepare(sampleRate: Double, maxFrames: Int) {
        precondition(SampleRates.supported.contains(sampleRate), "unsupported sample rate")
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames

        let rooms = Room.allCases
        let table = UniqueBuffer(count: rooms.count) { ReverbCoefficients(room: rooms[$0], sampleRate: sampleRate) }
        var maxLine = 8, maxDiffuser = 8, maxHistory = 8
        for i in 0..<rooms.count {
            maxLine = max(maxLine, table.base[i].longestLine)
            maxDiffuser = max(maxDiffuser, table.base[i].longestDiffuser)
            maxHistory = max(maxHistory, table.base[i].longestHistory)
        }
        roomCount = rooms.count
        formCrossfadeFrames = max(8, Int((ReverbTuning.shortFormCrossfadeSeconds * sampleRate).rounded()))

        predelay.prepare(sampleRate: sampleRate)
        historyLength = Self.powerOfTwo(atLeast: maxHistory + ReverbPredelay.maximumFrames(sampleRate: sampleRate) + 8)
        let lineLength = Self.powerOfTwo(atLeast: maxLine)
        let diffuserLength = Self.powerOfTwo(atLeast: maxDiffuser)
        slotCount = SpillOverTuning.slots
        let networkFloats = ReverbCore.floats(lineLength: lineLength, diffuserLength: diffuserLength)
        let floats = ResidentFloats(count: slotCount * (networkFloats + historyFloats))
        let slots = UniqueBuffer(count: slotCount) { s in
            let start = floats.base + s * (networkFloats + historyFloats)
            var slot = ReverbSlot()
            slot.core = ReverbCore(lineLength: lineLength, diffuserLength: diffuserLength, memory: start)
            slot.history = start + networkFloats
            return slot
        }
        let decayMatching = Self.decayMatchingTable(table.base, sampleRate: sampleRate)
        let holding = Self.holdingTable(table.base, sampleRate: sampleRate)
        let shortForms = Self.shortFormTable(table.base, sampleRate: sampleRate)
        memory = ReverbMemory(table: table, decayMatching: decayMatching, holding: holding, shortForms: shortForms,
                              decayTimes: UniqueBuffer(count: rooms.count) { rooms[$0].targetDecaySeconds },
                              slots: slots, floats: floats)
        self.table = memory.table.base
        decayTable = memory.decayMatching.base
        holdTable = memory.holding.base
        self.shortForms = memory.shortForms.base
        decayTimes = memory.decayTimes.base
        self.slots = memory.slots.base

        feedFrames = max(8, Int((ReverbShape.freezeFadeSeconds * sampleRate).rounded()))
        cutFrames = max(8, Int((SpillOverTuning.cutSeconds * sampleRate).rounded()))
        matchedFadeOutFrames = max(1, Int((SpillOverTuning.matchedFadeOutSeconds * sampleRate).rounded()))
        quietGroupsToEnd = max(1, Int((SpillOverTuning.silenceSeconds * sampleRate / 8).rounded()))
        let groups = max(1, Int(SpillOverTuning.clearSeconds * sampleRate / 8))
        clearStepFloats = (networkFloats + historyFloats + groups - 1) / groups

        // Fresh memory is all zero (nothing has rendered into it): this only sets the phases.
        reset()
    }

    static func powerOfTwo(atLeast n: Int) -> Int {
        var p = 8
        while p < n { p <<= 1 }
        return p
    }

    /// Floats of one slot's history: two planar rings with their 8-float mirrors.
    var historyFloats: Int { @_noLocks get { 2 * (historyLength + 8) } }

    // MARK: Realtime control

    /// Clears all state (silence) at once, in the room most recently asked for; a running
    /// crossfade and a queued room change are dropped. (Whole memories: for setup, not per
    /// change.)
    /// - Realtime: safe
    @_noLocks public mutating func reset() {
        guard let slots, let table else { return }
        for s in 0..<slotCount { clearAtOnce(s, slots) }
        live = 0
        slots[0].phase = .live
        slots[0].core.load(table[requestedRoom.index], room: requestedRoom)
        fadeLength = 0
        fadeDone = 0
        fadingOut = .none
        pendingRoom = nil
        historyWrite = 0
        phase = 0
        wetStage.reset()
        predelay.reset()
        feedPosition = feedStopping ? 0 : feedFrames
        if let glide { shape = glide.to }
        glide = nil
        shapeChanged = true
        groupLeft = .zero
        groupRight = .zero
    }

    /// Switches room. With `crossfadeFrames > 0` the input crossfades, with an equal-power law
    /// over that many samples starting at the next input sample, from the heard network to one
    /// holding the new room, and the old room's tail rings out (see the type's notes). A request
    /// made during a running crossfade is queued and starts when it ends (the last request
    /// wins). Costs O(1): no memory is cleared here.
    /// `crossfadeFrames == 0` switches at once (for setup): all state is cleared and the heard
    /// network takes the new room; a running crossfade and a queued request are dropped.
    /// - Realtime: safe
    @_noLocks public mutating func setRoom(_ room: Room, crossfadeFrames: Int) {
        requestedRoom = room
        guard let slots, table != nil else { return }
        if crossfadeFrames <= 0 {
            reset()
            return
        }
        var queued = false
        if case .some = pendingRoom { queued = true }
        if fadeLength > 0 || queued {
            if fadeLength > 0 && room.index == slots[live].core.room.index {
                pendingRoom = nil
            } else {
                pendingRoom = room
                pendingFrames = crossfadeFrames
            }
            return
        }
        if room.index == slots[live].core.room.index { return }
        if !startChange(to: room, short: startsShort(room), frames: crossfadeFrames, slots) {
            pendingRoom = room
            pendingFrames = crossfadeFrames
        }
    }

    /// Sets the shaping controls (each clamped into its range), from the next 8-sample group
    /// on (the engine's control segments start on 32-sample ticks, so this is sample-accurate
    /// there and independent of the block size): the heard network's absorption (`decay`,
    /// `damping`, `freeze`), the wet output's cuts and width, and the input feed (`freeze`
    /// fades it out over `ReverbShape.freezeFadeSeconds`, unfreezing fades it back in).
    /// A room change keeps the shape (the control side sends a new room's own values, `Room.shape`,
    /// unless the same change sets them); tails of earlier rooms keep their own decay. A shape
    /// given while a room change waits its turn is that room's: the heard network keeps its
    /// absorption until the waiting room starts (`applyShape`).
    /// - Realtime: safe
    @_noLocks public mutating func setShape(_ shape: ReverbShape) {
        setShape(shape, gliding: shape, frames: 0)
    }

    /// `setShape(shape)`, then the shape moves along the straight line to `target` over the
    /// next `frames` samples, counted from the group that takes it (`ReverbShapeGlide`: the
    /// absorption and the cuts per 8-sample group, the width per sample), and stays there.
    /// - Realtime: safe
    @_noLocks public mutating func setShape(_ shape: ReverbShape, gliding target: ReverbShape, frames: Int) {
        let from = shape.clamped, to = target.clamped
        self.shape = from
        glide = frames > 0 ? ReverbShapeGlide(from: from, to: to, frames: frames) : nil
        shapeChanged = true
    }

    // MARK: Inspection (tests)

    /// Calls `body` with every float of the state: each slot's input history, delay lines,
    /// diffusers and filter states, and the current group's output. Not realtime.
    func forEachStateValue(_ body: (Float) -> Void) {
        if let slots {
            for s in 0..<slotCount {
                if let h = slots[s].history { for i in 0..<historyFloats { body(h[i]) } }
                slots[s].core.forEachStateValue(body)
            }
        }
        for v in [groupLeft, groupRight] { for i in 0..<8 { body(v[i]) } }
    }
}

/// Everything one `Reverb.prepare` allocates, with one owner (see `UniqueBuffer`): the rooms'
/// coefficient tables (each by `Room.index`; decay matching by `from.index · rooms +
/// to.index`), their target decays (s), the slots, and the zeroed floats of the slots' networks
/// and input histories. Freed when the reverb goes or prepares again.
struct ReverbMemory: ~Copyable {
    let table: UniqueBuffer<ReverbCoefficients>
    let decayMatching: UniqueBuffer<ReverbCoefficients>
    let holding: UniqueBuffer<ReverbCoefficients>
    let shortForms: UniqueBuffer<ReverbCoefficients>
    let decayTimes: UniqueBuffer<Double>
    let slots: UniqueBuffer<ReverbSlot>
    let floats: ResidentFloats

    /// Nothing yet (an unprepared reverb).
    init() {
        self.init(table: UniqueBuffer(), decayMatching: UniqueBuffer(), holding: UniqueBuffer(),
                  shortForms: UniqueBuffer(), decayTimes: UniqueBuffer(), slots: UniqueBuffer(),
                  floats: ResidentFloats(count: 0))
    }

    init(table: consuming UniqueBuffer<ReverbCoefficients>, decayMatching: consuming UniqueBuffer<ReverbCoefficients>,
         holding: consuming UniqueBuffer<ReverbCoefficients>, shortForms: consuming UniqueBuffer<ReverbCoefficients>,
         decayTimes: consuming UniqueBuffer<Double>, slots: consuming UniqueBuffer<ReverbSlot>,
         floats: consuming ResidentFloats) {
        self.table = table
        self.decayMatching = decayMatching
        self.holding = holding
        self.shortForms = shortForms
        self.decayTimes = decayTimes
        self.slots = slots
        self.floats = floats
    }
}
