import RackDSP
import Synchronization

/// The render thread's MIDI stage, run once per process cycle before `rackRender`:
///
/// 1. **Map**: take a new `MIDITable` from the control thread's mailbox, if one waits.
/// 2. **Feedback**: the CCs the control thread's MIDI feedback sink queued (`feedback`, derived
///    from the change stream like every other feedback) are moved to the output, at frame 0 of
///    this cycle, at most the output's capacity a cycle: the rest wait for the next, in order.
///    Nothing is computed here.
/// 3. **Input**: the cycle's MIDI bytes go through `MIDIParser`; each CC of a bound controller
///    becomes a parameter event at its own frame (engine sample time + frame offset), submitted
///    to the engine (`EngineCore.submit`), which schedules it as it schedules a timetagged OSC
///    bundle, so the output does not depend on the block size. The engine takes the control
///    thread's commands first, so MIDI only takes scheduled-list room the control side has not
///    counted on (a full list drops the MIDI event; it is counted here at the next cycle). Each step ramps over the parameter's default ramp (20 ms),
///    which smooths 7-bit steps. A program change goes to the control thread (a preset recall
///    needs it), applied at its next pass.
///
/// Plain values and pointers allocated by `MIDILink`, which owns and frees them.
/// - Realtime: safe
public struct MIDIRouter {
    /// The atomic words the render thread and the control thread (`MIDILink`) share.
    enum Shared: Int, CaseIterable {
        /// A table waiting for the render thread (its slot pointer's bits; 0: none).
        case incomingTable
        /// The table the render thread let go of, for the control thread to free (0: none).
        case retiredTable
        /// The last controller moved: (count << 12) | (channel << 8) | controller.
        case movedController
        /// Events that could not be scheduled (full lists).
        case droppedEvents
    }

    var parser = MIDIParser()
    /// The table in use (render thread), nil before the first one arrives.
    var table: MIDITable?
    /// The words of `Shared`, by its raw value.
    let shared: UnsafeMutablePointer<Atomic<Int>>
    /// The tables behind the pointers in `shared`, by the word that holds their bits
    /// (`Shared.incomingTable`, `Shared.retiredTable`: the first two words, so two slots).
    let tableHeaders: UnsafeMutablePointer<MIDITable?>
    /// Last MSB per channel and controller (−1: none yet), for the 14-bit LSB.
    let msbs: UnsafeMutablePointer<Int16>
    /// Control → render: the feedback CCs to send.
    public let feedback: MIDIFeedbackQueue
    /// Render → control: program changes (program numbers 0…127).
    public let programs: ProgramQueue
    var movedCount = 0

    init() {
        shared = .allocate(capacity: Shared.allCases.count)
        for i in 0..<Shared.allCases.count { (shared + i).initialize(to: Atomic(0)) }
        tableHeaders = .allocate(capacity: 2)
        tableHeaders.initialize(repeating: nil, count: 2)
        msbs = .allocate(capacity: 16 * 128)
        msbs.initialize(repeating: -1, count: 16 * 128)
        feedback = MIDIFeedbackQueue()
        programs = ProgramQueue(minimumCapacity: 64)
    }

    func deallocate() {
        shared.deinitialize(count: Shared.allCases.count)
        shared.deallocate()
        tableHeaders.deallocate()
        msbs.deallocate()
        feedback.deallocate()
        programs.deallocate()
    }

    /// Reads a shared word (either thread).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func load(_ word: Shared) -> Int { shared[word.rawValue].load(ordering: .acquiring) }

    /// Publishes a shared word (either thread).
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func store(_ word: Shared, _ value: Int) { shared[word.rawValue].store(value, ordering: .releasing) }

    /// Counts an event that found the lists full.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func countDroppedEvent() { shared[Shared.droppedEvents.rawValue].wrappingAdd(1, ordering: .relaxed) }

    /// Stages 1 and 2: a new table (and the count of the last cycle's events the engine
    /// dropped), and the queued feedback CCs into `out` (3 bytes each, at
    /// most `capacity` messages). Returns how many messages were written.
    /// - Realtime: safe
    @_noLocks
    public mutating func beginCycle(_ core: UnsafeMutablePointer<EngineCore>, out: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        takeTable()
        let dropped = core.pointee.takeDroppedSubmissions()
        if dropped > 0 { shared[Shared.droppedEvents.rawValue].wrappingAdd(dropped, ordering: .relaxed) }
        return feedback.drain(into: out, capacity: capacity)
    }

    /// Stage 1: swaps in the table the control thread left in the mailbox, once the control
    /// thread has collected the one before.
    /// - Realtime: safe
    @_noLocks
    mutating func takeTable() {
        guard load(.incomingTable) != 0, load(.retiredTable) == 0 else { return }
        // The control thread writes the header only while the mailbox is empty: read it
        // before emptying the mailbox.
        let incoming = tableHeaders[Shared.incomingTable.rawValue]
        if let old = table {
            tableHeaders[Shared.retiredTable.rawValue] = old
            store(.retiredTable, Int(bitPattern: old.slots))
        }
        table = incoming
        store(.incomingTable, 0)
    }

    /// Stage 3: the bytes of one JACK MIDI event at `frame` of the cycle (the cycle starts at
    /// the engine's current sample time).
    /// - Realtime: safe
    @_noLocks
    public mutating func receive(_ bytes: UnsafePointer<UInt8>, count: Int, frame: Int, core: UnsafeMutablePointer<EngineCore>) {
        for i in 0..<count {
            guard let m = parser.feed(bytes[i]) else { continue }
            let t = core.pointee.sampleTime + Int64(max(frame, 0))
            switch m {
            case let .controlChange(channel, controller, value):
                controlChange(channel: channel, controller: controller, value: value, at: t, core: core)
            case let .programChange(channel, program):
                guard let table, table.channelFilter == 0 || table.channelFilter == channel + 1 else { continue }
                if !programs.push(Int(program)) {
                    countDroppedEvent()
                }
            }
        }
        parser.endEvent()
    }

    /// A CC: noted for MIDI learn, then, if bound on this channel, a parameter event at `t`.
    /// - Realtime: safe
    @_noLocks
    mutating func controlChange(channel: UInt8, controller: UInt8, value: UInt8, at t: Int64,
                                core: UnsafeMutablePointer<EngineCore>) {
        guard let table, table.channelFilter == 0 || table.channelFilter == channel + 1 else { return }
        let slot = table.slots[Int(controller)]
        if slot.msb == nil {   // learn sees the MSB of a 14-bit pair, never its LSB
            movedCount &+= 1
            store(.movedController, (movedCount << 12) | (Int(channel) << 8) | Int(controller))
        }
        guard let parameter = slot.parameter, slot.channel == 0 || slot.channel == channel + 1 else { return }
        let position: Double
        if let msbController = slot.msb {
            let msb = msbs[Int(channel) * 128 + Int(msbController)]
            guard msb >= 0 else { return }             // an LSB with no MSB to refine
            position = Double(Int(msb) * 128 + Int(value)) / 16_383
        } else {
            msbs[Int(channel) * 128 + Int(controller)] = Int16(value)
            position = Double(value) / 127
        }
        let v = MIDITable.value(slot, position: position)
        // Not counted as scheduled by the control side; its notice (a `midiSet`) makes it the
        // target there.
        if !core.pointee.submit(EngineEvent(sampleTime: t, .midiSet(parameter, v))) { countDroppedEvent() }
    }
}
