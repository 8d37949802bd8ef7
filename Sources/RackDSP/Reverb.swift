/// Stereo reverb: an 8-line feedback delay network (FDN) in the style of zita-rev1, with
/// crossfaded room changes. The public type the engine uses; the network itself is `ReverbCore`
/// (its design maths: `ReverbCoefficients`; its constants: `ReverbTuning`; the rooms:
/// `RoomDefinition.table`).
///
/// Input and groups: the input goes into a stereo history ring that both cores read (pre-delay,
/// input smoothing, early taps). The network runs in groups of 8 samples (see `ReverbCore`); a
/// group's output is computed when its first input sample arrives (it does not depend on that
/// group's input) and handed out sample by sample, so the result does not depend on how the
/// caller splits its blocks, and there is no added latency. Input samples below
/// `ReverbTuning.inputFlush` (1e-30) in magnitude are flushed to 0.
///
/// Room changes: two FDN cores share the input history. `setRoom(_:crossfadeFrames:)` clears the
/// idle core, gives it the new room and, from the next 8-sample group boundary, fades with an
/// EQUAL-POWER law (g_old = cos(π/2·x), g_new = sin(π/2·x), x from 0 to 1 over the fade). Both
/// cores receive the input during the fade, so the old room's tail keeps evolving as it fades.
///
/// Realtime: `process`, `reset` and `setRoom` are `@_noLocks`; all buffers and every room's
/// coefficients are made in `prepare`.
///
/// Ownership: the struct holds unsafe pointers to the buffers `prepare` allocates; copies share
/// them, so keep one owner, call `deallocate()` once when done, and never use it from two
/// threads at once. (`@unchecked Sendable` so the owner can hand it to the audio thread.)
public struct Reverb: @unchecked Sendable {
    /// Input history: two planar rings (left, then right) of `historyLength + 8` floats each; the
    /// last 8 mirror the first 8 so that any 8 consecutive samples are contiguous.
    var history: UnsafeMutablePointer<Float>? = nil
    var historyLength = 0
    /// Index of the next input sample in the history ring (a multiple of 8 at group starts).
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

    /// The core that is heard (fading out during a crossfade).
    var active = ReverbCore()
    /// The core fading in during a crossfade (idle otherwise).
    var incoming = ReverbCore()
    /// Length of the running crossfade (samples; 0: none) and how much of it is done.
    var fadeLength = 0
    var fadeDone = 0
    /// A room requested while a fade was running; it starts when that fade ends.
    var pendingRoom: Room? = nil
    var pendingFrames = 0
    /// The room most recently asked for (what `room` reports).
    var requestedRoom: Room = .default

    /// The prepared sample rate (Hz) and largest block (frames); 0 before `prepare`.
    public private(set) var sampleRate: Double = 0
    public private(set) var maxFrames: Int = 0

    public init() {}

    /// The room most recently set (during a crossfade: the room being faded to).
    public var room: Room { requestedRoom }

    // MARK: Setup (not realtime)

    /// Allocates every buffer for the largest room at this rate; precomputes every room's
    /// coefficients. The only place that allocates. `sampleRate` in Hz, within
    /// `SampleRates.supported`; `maxFrames` is the largest block `process` will get (recorded
    /// only: the reverb needs no per-block scratch). Calling it again re-prepares (it frees the previous buffers first) and clears
    /// all state; the room is kept.
    public mutating func prepare(sampleRate: Double, maxFrames: Int) {
        deallocate()
        precondition(SampleRates.supported.contains(sampleRate), "unsupported sample rate")
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames

        let rooms = Room.allCases
        let table = UnsafeMutablePointer<ReverbCoefficients>.allocate(capacity: rooms.count)
        var maxLine = 8, maxDiffuser = 8, maxHistory = 8
        for room in rooms {
            let c = ReverbCoefficients(room: room, sampleRate: sampleRate)
            (table + room.index).initialize(to: c)
            maxLine = max(maxLine, c.longestLine)
            maxDiffuser = max(maxDiffuser, c.longestDiffuser)
            maxHistory = max(maxHistory, c.longestHistory)
        }
        self.table = table

        historyLength = Self.powerOfTwo(atLeast: maxHistory + 8)
        let history = UnsafeMutablePointer<Float>.allocate(capacity: 2 * (historyLength + 8))
        history.initialize(repeating: 0, count: 2 * (historyLength + 8))
        self.history = history
        historyWrite = 0
        phase = 0
        groupLeft = .zero
        groupRight = .zero

        let lineLength = Self.powerOfTwo(atLeast: maxLine)
        let diffuserLength = Self.powerOfTwo(atLeast: maxDiffuser)
        active = ReverbCore(lineLength: lineLength, diffuserLength: diffuserLength)
        incoming = ReverbCore(lineLength: lineLength, diffuserLength: diffuserLength)
        active.load(table[requestedRoom.index], room: requestedRoom)
        incoming.load(table[requestedRoom.index], room: requestedRoom)
        fadeLength = 0
        fadeDone = 0
        pendingRoom = nil
    }

    /// Frees what `prepare` allocated. Safe to call more than once; afterwards `process`
    /// outputs silence until `prepare` is called again.
    public mutating func deallocate() {
        active.deallocate()
        incoming.deallocate()
        history?.deallocate()
        history = nil
        table?.deallocate()
        table = nil
        fadeLength = 0
        fadeDone = 0
        pendingRoom = nil
        sampleRate = 0
    }

    static func powerOfTwo(atLeast n: Int) -> Int {
        var p = 8
        while p < n { p <<= 1 }
        return p
    }

    // MARK: Realtime control

    /// Clears all state (silence), keeps the room; a running crossfade ends at once (on the
    /// room being faded to) and a queued room change is dropped.
    /// - Realtime: safe
    @_noLocks public mutating func reset() {
        guard let history else { return }
        if fadeLength > 0 { finishFade() }
        pendingRoom = nil
        history.update(repeating: 0, count: 2 * (historyLength + 8))
        historyWrite = 0
        phase = 0
        groupLeft = .zero
        groupRight = .zero
        active.clearAll()
        incoming.clearAll()
    }

    /// Switches room. With `crossfadeFrames > 0` the output crossfades, with an equal-power law,
    /// from the old room (whose tail keeps evolving) to the new room over that many samples,
    /// starting at the next 8-sample group boundary (≤ 7 samples later); the new room starts from
    /// silence, fed from the shared input history. A request made during a running fade is
    /// queued and starts when that fade ends (the last request wins).
    /// `crossfadeFrames == 0` switches at once (for setup): the heard core is silenced and takes
    /// the new room; a running fade and a queued request are dropped.
    /// - Realtime: safe
    @_noLocks public mutating func setRoom(_ room: Room, crossfadeFrames: Int) {
        requestedRoom = room
        guard let table else { return }
        if crossfadeFrames <= 0 {
            fadeLength = 0
            fadeDone = 0
            pendingRoom = nil
            active.load(table[room.index], room: room)
            active.clearWindow()
            return
        }
        if fadeLength > 0 {
            if room.index == incoming.room.index {
                pendingRoom = nil
            } else {
                pendingRoom = room
                pendingFrames = crossfadeFrames
            }
            return
        }
        pendingRoom = nil
        if room.index == active.room.index { return }
        startFade(to: room, frames: crossfadeFrames, table: table)
    }

    @inline(__always)
    mutating func startFade(to room: Room, frames: Int,
                            table: UnsafeMutablePointer<ReverbCoefficients>) {
        incoming.load(table[room.index], room: room)
        incoming.clearWindow()
        fadeLength = frames
        fadeDone = 0
    }

    /// Ends the running fade: the incoming core becomes the heard one; a queued room starts its
    /// own fade with the next group.
    @inline(__always)
    mutating func finishFade() {
        let t = active
        active = incoming
        incoming = t
        fadeLength = 0
        fadeDone = 0
        if let next = pendingRoom, let table {
            pendingRoom = nil
            if next.index != active.room.index {
                startFade(to: next, frames: pendingFrames, table: table)
            }
        }
    }

    // MARK: Audio

    /// 100 % wet stereo output for `frames` input samples (`frames ≤ maxFrames`). Input and
    /// output may NOT alias. Splitting a block into several calls of any sizes gives
    /// bit-identical output. Unprepared: writes silence.
    /// - Realtime: safe
    @_noLocks public mutating func process(
        inputLeft: UnsafePointer<Float>, inputRight: UnsafePointer<Float>,
        outputLeft: UnsafeMutablePointer<Float>, outputRight: UnsafeMutablePointer<Float>,
        frames: Int
    ) {
        guard frames > 0 else { return }
        guard let history else {
            outputLeft.update(repeating: 0, count: frames)
            outputRight.update(repeating: 0, count: frames)
            return
        }
        var k = 0
        // Finish a group begun in an earlier call.
        while phase != 0 && k < frames {
            pushInput(history, inputLeft[k], inputRight[k])
            outputLeft[k] = groupLeft[phase]
            outputRight[k] = groupRight[phase]
            phase = (phase + 1) & 7
            k += 1
        }
        // Whole groups, straight to the output.
        while frames - k >= 8 {
            let (l, r) = renderGroup(history)
            pushGroup(history, UnsafeRawPointer(inputLeft + k).loadUnaligned(as: SIMD8<Float>.self),
                      UnsafeRawPointer(inputRight + k).loadUnaligned(as: SIMD8<Float>.self))
            UnsafeMutableRawPointer(outputLeft + k).storeBytes(of: l, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(outputRight + k).storeBytes(of: r, as: SIMD8<Float>.self)
            k &+= 8
        }
        // Start a group that this call only partly covers.
        if k < frames {
            (groupLeft, groupRight) = renderGroup(history)
            while k < frames {
                pushInput(history, inputLeft[k], inputRight[k])
                outputLeft[k] = groupLeft[phase]
                outputRight[k] = groupRight[phase]
                phase += 1
                k += 1
            }
        }
    }

    /// Stores one input frame into the history (flushing magnitudes below `inputFlush` to 0,
    /// so no subnormal input reaches the taps) and advances the write index.
    @inline(__always)
    mutating func pushInput(_ history: UnsafeMutablePointer<Float>, _ l: Float, _ r: Float) {
        let i = historyWrite
        let stride = historyLength + 8
        let cl: Float = abs(l) < inputFlush ? 0 : l
        let cr: Float = abs(r) < inputFlush ? 0 : r
        history[i] = cl
        history[stride + i] = cr
        if i < 8 {
            history[historyLength + i] = cl
            history[stride + historyLength + i] = cr
        }
        historyWrite = (i + 1) & (historyLength - 1)
    }

    /// `pushInput` for a whole group (the write index is a multiple of 8).
    @inline(__always)
    mutating func pushGroup(_ history: UnsafeMutablePointer<Float>, _ l: SIMD8<Float>, _ r: SIMD8<Float>) {
        let i = historyWrite
        let stride = historyLength &+ 8
        let t = inputFlush
        let cl = l.replacing(with: 0, where: (l .< t) .& (l .> -t))
        let cr = r.replacing(with: 0, where: (r .< t) .& (r .> -t))
        ReverbCore.store(cl, history + i)
        ReverbCore.store(cr, history + (stride &+ i))
        if i == 0 {
            ReverbCore.store(cl, history + historyLength)
            ReverbCore.store(cr, history + (stride &+ historyLength))
        }
        historyWrite = (i &+ 8) & (historyLength &- 1)
    }

    /// The output of the group starting at the history write index (which is a multiple of 8);
    /// reads only history older than the group.
    @inline(__always)
    mutating func renderGroup(_ history: UnsafeMutablePointer<Float>) -> (SIMD8<Float>, SIMD8<Float>) {
        let h = HistoryView(base: history, stride: historyLength + 8, mask: historyLength - 1,
                            write: historyWrite)
        if fadeLength == 0 {
            return active.render(h)
        }
        let (al, ar) = active.render(h)
        let (bl, br) = incoming.render(h)
        // Fade position of each sample of the group: x = (done + j + 1)/length, clamped to 1.
        let j = SIMD8<Float>(1, 2, 3, 4, 5, 6, 7, 8)
        let x = ((Float(fadeDone) + j) * (1 / Float(fadeLength)))
            .replacing(with: 1, where: j .> Float(fadeLength - fadeDone))
        let gIn = Self.quarterSine(x)
        let gOut = Self.quarterSine(1 - x)
        fadeDone += 8
        if fadeDone >= fadeLength { finishFade() }
        return (gOut * al + gIn * bl, gOut * ar + gIn * br)
    }

    // MARK: Inspection (tests)

    /// Calls `body` with every float of the state: the input history, both cores' delay lines,
    /// diffusers and filter states, and the current group's output. Not realtime.
    func forEachStateValue(_ body: (Float) -> Void) {
        if let history {
            for i in 0..<(2 * (historyLength + 8)) { body(history[i]) }
        }
        for v in [groupLeft, groupRight] { for i in 0..<8 { body(v[i]) } }
        active.forEachStateValue(body)
        incoming.forEachStateValue(body)
    }

    /// sin(π/2·x) for x in [0, 1], odd Taylor polynomial to θ¹¹ (|error| < 6e-8, float
    /// resolution; exactly 0 at 0).
    @inline(__always)
    static func quarterSine(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let t = x * (Float.pi / 2)
        let t2 = t * t
        var p = SIMD8<Float>(repeating: -1.0 / 39_916_800)
        p = p * t2 + (1.0 / 362_880)
        p = p * t2 + (-1.0 / 5040)
        p = p * t2 + (1.0 / 120)
        p = p * t2 + (-1.0 / 6)
        p = p * t2 + 1
        return t * p
    }
}

/// Where a group's input lives: planar history rings (right = left + stride) and the index of
/// the group's first sample.
struct HistoryView {
    let base: UnsafeMutablePointer<Float>
    let stride: Int
    let mask: Int
    let write: Int

    /// The 8 samples of `channel` (0: L, 1: R) starting `delay` samples before the group.
    @_noLocks @inline(__always)
    func load(delay: Int, channel: Int) -> SIMD8<Float> {
        let p = base + (channel &* stride &+ ((write &- delay) & mask))
        return UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
}
