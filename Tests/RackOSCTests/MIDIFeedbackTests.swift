import XCTest
import RackEngine
@testable import RackOSC
import RackWire

/// MIDI out as a sink of the change stream: what the control side learns of a change (its echo)
/// becomes the CC bytes queued for the render thread's MIDI stage; MIDI's own changes, unmapped
/// parameters and a rejoin send nothing; a full queue drops and counts.
final class MIDIFeedbackTests: XCTestCase {
    private func rig(map: MIDIMap = .defaults, channelFilter: Int = 0) -> (Rig, MIDIControl) {
        let rig = Rig()
        let midi = MIDIControl(link: MIDILink(map: map, channelFilter: channelFilter), path: nil)
        rig.controller.midi = midi
        return (rig, midi)
    }

    /// One process cycle's MIDI stage (with `bytes` in at frame 0), as the JACK callback runs
    /// it: returns the bytes it wrote to the output, at most `capacity` messages.
    @discardableResult
    private func cycle(_ rig: Rig, _ midi: MIDIControl, _ bytes: [UInt8] = [], capacity: Int = 64) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 3 * capacity)
        let n = midi.link.router.pointee.beginCycle(rig.engine.core, out: &out, capacity: capacity)
        if !bytes.isEmpty {
            bytes.withUnsafeBufferPointer { midi.link.router.pointee.receive($0.baseAddress!, count: bytes.count, frame: 0, core: rig.engine.core) }
        }
        rig.render()
        rig.controller.pollMIDI()
        rig.controller.serveOnce()
        return Array(out[0..<(3 * n)])
    }

    /// An OSC set of a mapped parameter: once its echo is back, exactly its CC is queued, and
    /// the next cycle writes it.
    func testAnOSCSetOfAMappedParameterQueuesItsCC() {
        let (rig, midi) = rig()
        rig.send("/rack/gain", [.float(12)])
        XCTAssertEqual(midi.link.router.pointee.feedback.count, 0, "nothing before the echo")
        rig.controller.serveOnce()   // the echo: the change stream's record
        XCTAssertEqual(midi.link.router.pointee.feedback.count, 1)
        XCTAssertEqual(cycle(rig, midi), [0xB0, 7, 127], "gain +12 dB is CC 7 at 127")
        rig.send("/rack/cutoff", [.float(12)])
        rig.send("/rack/mix", [.float(100)])
        rig.controller.serveOnce()
        XCTAssertEqual(cycle(rig, midi), [0xB0, 74, 0, 0xB0, 91, 127], "in the order they were applied")
        XCTAssertEqual(cycle(rig, midi), [], "each once")
    }

    /// MIDI is told what changes: a value set again, or set to where it already was (as far as
    /// a 7-bit controller shows), sends nothing (a hardware port carries about 1,000 messages a
    /// second).
    func testAValueMIDIAlreadyKnowsIsNotSentAgain() {
        let (rig, midi) = rig()
        rig.send("/rack/mix", [.float(Float(rig.controller.targets[.mix]))])
        rig.controller.serveOnce()
        XCTAssertEqual(cycle(rig, midi), [], "mix set to its own value")
        rig.send("/rack/gain", [.float(-6)])
        rig.controller.serveOnce()
        XCTAssertEqual(cycle(rig, midi).count, 3, "a change is sent")
        rig.send("/rack/gain", [.float(-6)])
        rig.controller.serveOnce()
        XCTAssertEqual(cycle(rig, midi), [], "the same value again is not")
        _ = cycle(rig, midi, [0xB0, 7, 100])          // a controller moves gain
        rig.send("/rack/gain", [.float(Float(rig.controller.targets[.gain]))])
        rig.controller.serveOnce()
        XCTAssertEqual(cycle(rig, midi), [], "the value the controller set is known to MIDI")
    }

    func testAMIDIChangeIsNeverSentBack() {
        let (rig, midi) = rig()
        XCTAssertEqual(cycle(rig, midi, [0xB0, 91, 10]), [])
        XCTAssertEqual(rig.controller.targets[.mix], 10.0 / 127 * 100, accuracy: 1e-9, "the control side learnt it")
        XCTAssertEqual(cycle(rig, midi), [], "not the cycle after either")
        XCTAssertEqual(midi.link.router.pointee.feedback.count, 0)
    }

    func testAnUnmappedParameterSendsNothing() {
        let (rig, midi) = rig()
        rig.send("/rack/decay", [.float(3)])
        rig.send("/rack/room", [.string("plate")])
        rig.controller.serveOnce()
        XCTAssertEqual(cycle(rig, midi), [], "decay, room and the room's shaping values are bound to no controller")
    }

    /// A room change's shaping values are parameter records like any other: a controller bound
    /// to one of them gets the value the room brought.
    func testARoomSendsTheShapingValuesOfBoundControllers() {
        var map = MIDIMap.defaults
        map.bind(.init(channel: 5, controller: 20, parameter: .decay))
        let (rig, midi) = rig(map: map)
        rig.send("/rack/room", [.string("plate")])
        rig.controller.serveOnce()
        let decay = rig.controller.targets[.decay]
        let position = Parameters[.decay].range.normalized(decay)
        XCTAssertEqual(cycle(rig, midi), [0xB4, 20, UInt8((position * 127).rounded())], "channel 5's status is 0xB4")
    }

    /// A preset recall sends the CCs of its mapped parameters (each parameter record), on the
    /// channel filter's channel when the binding has none.
    func testAPresetRecallSendsItsMappedParameters() throws {
        let (rig, midi) = rig(channelFilter: 3)
        let warm = try XCTUnwrap(rig.controller.presets.preset(named: "Warm")).state
        rig.send("/rack/preset", [.string("Warm")])
        rig.controller.serveOnce()
        // The parameter records come in the table's order: cutoff, resonance, mix, gain.
        let expected: [UInt8] = [(74, ParameterID.cutoff), (71, .resonance), (91, .mix), (7, .gain)]
            .flatMap { cc, id in [0xB2, UInt8(cc), UInt8((Parameters[id].range.normalized(warm[id]) * 127).rounded())] }
        XCTAssertEqual(cycle(rig, midi), expected)
    }

    /// The queue holds `MIDIFeedbackQueue.capacity` messages: the ones pushed into a full queue
    /// are dropped and counted; those waiting go out in order, at most the output's capacity a
    /// cycle, none lost.
    func testAFullQueueDropsAndCounts() {
        let (rig, midi) = rig()
        let extra = 7
        for i in 0..<(MIDIFeedbackQueue.capacity + extra) {
            rig.send("/rack/mix", [.float(Float(i % 128) / 127 * 100)])
        }
        rig.controller.serveOnce()
        XCTAssertEqual(midi.link.feedbackDropped, extra)
        var sent: [UInt8] = []
        for _ in 0..<(MIDIFeedbackQueue.capacity / 64) {
            let bytes = cycle(rig, midi)
            XCTAssertEqual(bytes.count, 3 * 64, "the output's capacity a cycle")
            sent += bytes
        }
        XCTAssertEqual(cycle(rig, midi), [])
        let values = stride(from: 2, to: sent.count, by: 3).map { Int(sent[$0]) }
        XCTAssertEqual(values, (0..<MIDIFeedbackQueue.capacity).map { $0 % 128 }, "the first ones, in order")
    }

    /// The README's figure of the queue is the code's.
    func testTheReadmesQueueFigureIsTheCodes() throws {
        let readme = ReadmeFiguresTests.readme
        let pattern = try Regex(#"The\s+queue\s+to\s+`midi_out`\s+holds\s+([\d,]+)\s+CCs"#, as: (Substring, Substring).self)
        let match = try XCTUnwrap(readme.firstMatch(of: pattern), "the README no longer says it")
        XCTAssertEqual(Int(match.1.replacingOccurrences(of: ",", with: "")), MIDIFeedbackQueue.capacity)
    }

    /// The engine taking up the state after the server came back is no news: nothing is sent.
    func testARejoinSendsNothing() {
        let (rig, midi) = rig()
        XCTAssertNil(ChangeRecord(change: .parameter(.gain, 0), source: .rejoin).midiFeedback)
        XCTAssertNil(ChangeRecord(change: .parameter(.gain, 0), source: .midiController).midiFeedback)
        XCTAssertEqual(ChangeRecord(change: .parameter(.gain, 0), source: .whileAway).midiFeedback?.value, 0)
        XCTAssertNil(ChangeRecord(change: .preset(name: "Warm", rampFrames: 0), source: .control).midiFeedback)
        XCTAssertEqual(cycle(rig, midi), [])
    }
}
