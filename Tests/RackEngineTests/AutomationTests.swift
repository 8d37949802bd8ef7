import XCTest
import RackDSP
@testable import RackEngine
@testable import RackFiles

final class AutomationTests: XCTestCase {
    func parse(_ text: String, length: Double? = nil) -> Automation {
        Automation.parse(text, presetNames: ["Warm", "Bright"], presetAtIndex: { [0: "Bright", 1: "Warm"][$0] }, length: length)
    }

    func testTheContractExampleParses() {
        let a = parse("""
            0.0   /rack/preset  Warm
            2.0   /rack/cutoff  800  1.5     # ramp to 800 Hz over 1.5 s
            4.0   /rack/mix     80   0.5
            """)
        XCTAssertEqual(a.diagnostics, [])
        XCTAssertEqual(a.events.map(\.action), [
            .preset(name: "Warm", rampSeconds: nil),
            .set(.cutoff, value: 800, rampSeconds: 1.5),
            .set(.mix, value: 80, rampSeconds: 0.5),
        ])
    }

    /// A file saved with Windows (`\r\n`) or classic Mac (`\r`) line endings reads
    /// as the same lines, with the same line numbers in its diagnostics, as with `\n`.
    func testCRLFAndCRLineEndingsReadAsLines() {
        let lines = ["# header", "0.0 /rack/preset Warm", "2.0 /rack/cutoff 800 1.5", "3.0 /rack/cutof 1", "4.0 /rack/mix 80 0.5"]
        let unix = parse(lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(unix.events.count, 3)
        XCTAssertEqual(unix.errors.map(\.line), [4])
        for ending in ["\r\n", "\r"] {
            let other = parse(lines.joined(separator: ending) + ending)
            XCTAssertEqual(other.events, unix.events, "ending \(ending.debugDescription)")
            XCTAssertEqual(other.diagnostics, unix.diagnostics, "ending \(ending.debugDescription)")
        }
        // Mixed endings in one file too.
        let mixed = parse("0.0 /rack/mix 10\r\n1.0 /rack/mix 20\r2.0 /rack/mix 30\n3.0 /rack/mix x\r\n")
        XCTAssertEqual(mixed.events.map(\.time), [0, 1, 2])
        XCTAssertEqual(mixed.errors.map(\.line), [4])
    }

    func testEveryProblemHasItsLineNumber() {
        let a = parse("""
            # a comment line
            0.0 /rack/cutof 800
            1.0 /rack/cutoff loud
            0.5 /rack/mix 20
            2.0 /rack/cutoff 500 2
            3.0 /rack/cutoff 900
            4.0 /rack/room garage
            5.0 /rack/preset Nope
            x /rack/mix 3
            6.0 /rack/gain nan
            7.0 /rack/dump
            8.0 /rack/gain 100
            """)
        let byLine = Dictionary(grouping: a.diagnostics, by: \.line)
        XCTAssertTrue(byLine[2]?.first?.message.contains("unknown") == true)
        XCTAssertTrue(byLine[3]?.first?.message.contains("not a number") == true)
        XCTAssertTrue(byLine[4]?.first?.message.contains("backwards") == true)
        XCTAssertEqual(byLine[6]?.first?.severity, .warning, "an interrupted ramp is a warning")
        XCTAssertTrue(byLine[6]?.first?.message.contains("interrupts the ramp of cutoff from line 5 (running until 4 s)") == true)
        XCTAssertTrue(byLine[7]?.first?.message.contains("unknown room") == true)
        XCTAssertTrue(byLine[8]?.first?.message.contains("unknown preset") == true)
        // The error lists the presets there are.
        XCTAssertTrue(byLine[8]?.first?.message.contains("(one of '") == true, "\(byLine[8] ?? [])")
        XCTAssertTrue(byLine[9]?.first?.message.contains("time") == true)
        XCTAssertTrue(byLine[10]?.first?.message.contains("not finite") == true)
        XCTAssertTrue(byLine[11]?.first?.message.contains("non-automatable") == true)
        XCTAssertEqual(byLine[12]?.first?.severity, .warning, "out of range is clamped with a warning")
        XCTAssertEqual(a.errors.count, 8)
    }

    func testAFaderStreamInterruptsDefaultRampsSilentlyAndExplicitOnesWithAWarning() {
        XCTAssertEqual(parse("0 /rack/mix 10\n0.005 /rack/mix 11\n0.01 /rack/mix 12\n").diagnostics, [])
        let a = parse("0 /rack/mix 10 1\n0.5 /rack/mix 11\n")
        XCTAssertEqual(a.errors, [])
        XCTAssertEqual(a.warnings.map(\.line), [2])
        XCTAssertEqual(a.events.count, 2, "the interrupting change is kept: the later event wins")
        // A preset recall interrupting two ramps: one warning naming both.
        let p = parse("0 /rack/mix 10 1\n0 /rack/gain -6 2\n0.5 /rack/preset Warm\n")
        XCTAssertEqual(p.warnings.count, 1)
        XCTAssertTrue(p.warnings[0].message.contains("mix from line 1") && p.warnings[0].message.contains("gain from line 2"), p.warnings[0].message)
    }

    /// Times beyond a day (the longest render) are errors: a loop and an event at 604,000 s
    /// passed and rendered a week of audio.
    /// `rate HZ` gives the engine rate the file was heard at (a recording's first line), once,
    /// a rate the engine runs at; it is no event.
    func testARateLineGivesTheFilesEngineRate() {
        let a = parse("# recorded\n0 /rack/mix 40\nrate 44100 # heard at\n1 /rack/cutoff 800\n")
        XCTAssertEqual(a.diagnostics, [])
        XCTAssertEqual(a.sampleRate, 44_100)
        XCTAssertEqual(a.events.map(\.address), ["/rack/mix", "/rack/cutoff"])
        XCTAssertNil(parse("0 /rack/mix 40\n").sampleRate)
        XCTAssertEqual(parse("rate fast\n").errors.map(\.description),
                       ["line 1: error: rate takes one number of Hz, e.g. 'rate 48000'"])
        XCTAssertEqual(parse("rate 1000\n").errors.count, 1)
        XCTAssertTrue(parse("rate 1000\n").errors[0].description.hasPrefix("line 1: error: rate 1000: a sample rate of 1000 Hz is not supported"))
        XCTAssertEqual(parse("rate 48000\nrate 44100\n").errors.map(\.description),
                       ["line 2: error: a second rate line (the first gave 48000 Hz)"])
    }

    func testTimesBeyondADayAreRefused() {
        XCTAssertEqual(parse("1e300 /rack/mix 10\n").errors.map(\.line), [1])
        XCTAssertEqual(parse("\(formatNumber(Automation.maximumTimeSeconds)) /rack/mix 10\n").errors, [])
        XCTAssertEqual(parse("0 /rack/player/loop 1\n604000 /rack/mix 10\n").errors.map(\.message),
                       ["time 604000 is beyond 86400 s"])
    }

    /// An interrupted ramp renders as live: the later event retargets from wherever the first
    /// ramp had got to (exponential cutoff ramps, the math of `Ramp`).
    func testAnInterruptedRampGoesOnFromWhereItHadGot() {
        let a = parse("0 /rack/cutoff 300 5\n1 /rack/cutoff 3000 2\n")
        let rate = 48_000.0
        let engine = Engine(sampleRate: rate, maxFrames: 512)
        for e in a.engineEvents(sampleRate: rate, presets: PresetStore(factoryDirectory: "/nonexistent", userDirectory: "/nonexistent")) {
            engine.schedule(e)
        }
        var l = [Float](repeating: 0, count: 512), r = l
        func renderTo(seconds: Double) {
            while engine.sampleTime < Int64(seconds * rate) {
                let n = Int(min(512, Int64(seconds * rate) - engine.sampleTime))
                _ = engine.render(frames: n, inputLeft: nil, inputRight: nil, outputLeft: &l, outputRight: &r)
            }
        }
        let atInterrupt = 20_000 * pow(300 / 20_000.0, 1.0 / 5)     // 1 s into the 5 s ramp
        renderTo(seconds: 1)
        XCTAssertEqual(engine.core.pointee.currentValue(.cutoff), atInterrupt, accuracy: atInterrupt * 1e-7)
        renderTo(seconds: 2)                                          // halfway through the 2 s ramp
        let halfway = atInterrupt * pow(3000 / atInterrupt, 0.5)
        XCTAssertEqual(engine.core.pointee.currentValue(.cutoff), halfway, accuracy: halfway * 1e-7)
        renderTo(seconds: 3.5)
        XCTAssertEqual(engine.core.pointee.currentValue(.cutoff), 3000, accuracy: 1e-9)
    }

    func testBackToBackRampsMeetWithoutOverlap() {
        XCTAssertEqual(parse("0.1 /rack/cutoff 1000 0.02\n0.12 /rack/cutoff 900 0.02\n").diagnostics, [])
    }

    func testPastTheEndIsAWarning() {
        let a = parse("1.0 /rack/cutoff 500 3\n5.0 /rack/mix 0\n", length: 2)
        XCTAssertEqual(a.errors, [])
        XCTAssertEqual(a.warnings.map(\.line), [1, 2])
    }

    func testNormAndIndexForms() {
        let a = parse("0 /rack/cutoff/norm 0.5\n1 /rack/preset 1 0.5\n3 /rack/room plate 0.1\n")
        XCTAssertEqual(a.diagnostics, [])
        guard case let .set(_, v, _) = a.events[0].action else { return XCTFail() }
        XCTAssertEqual(v, (12 * 20_000.0).squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(a.events[1].action, .preset(name: "Warm", rampSeconds: 0.5))
    }

    func testQuotedNamesAndComments() {
        XCTAssertEqual(Automation.tokenize("1.5 /rack/preset \"Big Hall\" 0.5 # comment \"x\""), ["1.5", "/rack/preset", "Big Hall", "0.5"])
        XCTAssertNil(Automation.tokenize("1 /rack/preset \"Big"))
        let a = Automation.parse("0 /rack/preset \"Big Hall\"\n", presetNames: ["Big Hall"], presetAtIndex: { _ in nil })
        XCTAssertEqual(a.events.first?.action, .preset(name: "Big Hall", rampSeconds: nil))
        let comment = AutomationWriter.presetComment(name: "Big Hall", rampFrames: 24_000, atSeconds: 1, sampleRate: 48_000)
        XCTAssertEqual(comment, "# 1.000000 preset \"Big Hall\" recalled over 0.500000 s: its values follow")
        XCTAssertEqual(Automation.tokenize(comment), [], "a comment: the values that follow it are the recall")
    }

    func testACrossfadeBeyondTheRoomsCapIsShortenedWithAWarningAsTheEngineDoes() {
        let cap = Parameters[.room].maximumRampSeconds
        let a = parse("1 /rack/room plate 0.5\n2 /rack/room cathedral \(formatNumber(cap))\n")
        XCTAssertEqual(a.warnings.map(\.line), [1], "only the crossfade beyond the cap")
        XCTAssertEqual(a.warnings.first?.message, "crossfade 0.5 s shortened to \(formatNumber(cap)) s")
        // The engine's rule, in frames at 48 kHz: the 0.5 s asked for becomes the cap.
        let limits = Parameters[.room].rampLimits(sampleRate: 48_000)
        XCTAssertEqual(RampLength.frames(24_000).resolvedFrames(limits), Int64((cap * 48_000).rounded()))
        XCTAssertEqual(RampLength.standard.resolvedFrames(limits), Int64((Parameters[.room].defaultRampSeconds * 48_000).rounded()))
        XCTAssertEqual(RampLength.jump.resolvedFrames(limits), 0)
    }
}
