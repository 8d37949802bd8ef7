import Foundation
import XCTest
import RackTestSupport
import RackIO
import RackPathText

struct Run {
    let status: Int32
    let stdout: String
    let stderr: String
}

@discardableResult
func rack(_ args: [String], environment extra: [String: String] = [:], unsetting removed: [String] = [],
          shell: Bool = false) throws -> Run {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: shell ? "/bin/sh" : rackBinary)
    p.arguments = shell ? ["-c"] + args : args
    var env = ProcessInfo.processInfo.environment
    for (k, v) in extra { env[k] = v }
    for k in removed { env[k] = nil }
    p.environment = env
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
}

func readAll(_ path: String) throws -> (left: [Float], right: [Float], info: AudioFileInfo) {
    let r = try AudioFileReader(path: path)
    let n = Int(r.info.frames)
    var l = [Float](repeating: 0, count: n), rr = l
    var done = 0
    while done < n {
        let got = try l.withUnsafeMutableBufferPointer { lp in try rr.withUnsafeMutableBufferPointer { rp in
            try r.read(left: lp.baseAddress! + done, right: rp.baseAddress! + done, frames: n - done)
        }}
        if got == 0 { break }
        done += got
    }
    return (l, rr, r.info)
}

final class CLITests: XCTestCase {
    func testBareRackWithoutASessionManagerPrintsTheUsage() throws {
        // With NSM_URL set, bare `rack` runs the rack (test_nsm.py); without it, the usage. The
        // variable is removed from the child's environment, so the test runs under a session
        // manager too.
        let r = try rack([], unsetting: ["NSM_URL"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("USAGE: rack <subcommand>"), r.stdout)
    }

    var dir = ""
    var env: [String: String] = [:]

    override func setUpWithError() throws {
        dir = try makeTemporaryDirectory("rack-cli")
        env = ["XDG_CONFIG_HOME": dir + "/config"]
        try writeTone(dir + "/in.wav", seconds: 1.5)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// The README: "`rack render` starts the player where a seek at time 0 puts it (it does not
    /// replay later seeks, and says so)". The input is a ramp (its value is its position), the
    /// render dry: the output starts at the seek's position and runs on through the time of the
    /// later seek, which is named in a warning.
    func testRenderStartsAtASeekAtTimeZeroAndSaysItSkipsLaterOnes() throws {
        let rate = 48_000.0, n = 48_000
        let ramp = (0..<n).map { Float(0.8 * Double($0) / Double(n)) }   // 0.8 × position in seconds
        let w = try AudioFileWriter(path: dir + "/ramp.wav", sampleRate: rate, format: .float)
        try ramp.withUnsafeBufferPointer { try w.write(left: $0.baseAddress!, right: $0.baseAddress!, frames: n) }
        try w.commit(durable: false)
        try "0 /rack/player/seek 0.5\n0.2 /rack/player/seek 0.1\n".write(toFile: dir + "/seeks.txt", atomically: true, encoding: .utf8)
        let r = try rack(["render", dir + "/ramp.wav", dir + "/seeks.wav", "--automation", dir + "/seeks.txt",
                          "--set", "mix=0", "--format", "float"], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("seeks.txt:2: warning: rack render starts from a seek at time 0 only; it does not replay this one"), r.stderr)
        let out = try readAll(dir + "/seeks.wav")
        for t in [0.1, 0.3, 0.45] {
            let heard = Double(out.left[Int(t * rate)])
            XCTAssertEqual(heard, 0.8 * (0.5 + t), accuracy: 0.005, "at \(t) s: the file at \(0.5 + t) s, not replayed from 0.1 s")
        }
    }

    /// The README: "A change at time 0 without a ramp sets the state a render starts from
    /// (nothing has been heard to ramp from); with a ramp it ramps as ever." A constant 0.5
    /// rendered dry with `/rack/gain -6` at time 0: −6 dB once the player's 5 ms fade-in is
    /// done (10 ms in); with a 0.1 s ramp, a tenth of the way (−0.6 dB) there, −6 dB from 0.1 s.
    func testAChangeAtTimeZeroSetsTheStartingStateUnlessItRamps() throws {
        let rate = 48_000.0, n = 24_000
        let half = [Float](repeating: 0.5, count: n)
        let w = try AudioFileWriter(path: dir + "/dc.wav", sampleRate: rate, format: .float)
        try half.withUnsafeBufferPointer { try w.write(left: $0.baseAddress!, right: $0.baseAddress!, frames: n) }
        try w.commit(durable: false)
        let minus6 = 0.5 * pow(10, -6.0 / 20)
        for (line, early) in [("0 /rack/gain -6\n", minus6), ("0 /rack/gain -6 0.1\n", 0.5 * pow(10, -0.6 / 20))] {
            try line.write(toFile: dir + "/zero.txt", atomically: true, encoding: .utf8)
            try rack(["render", dir + "/dc.wav", dir + "/zero.wav", "--automation", dir + "/zero.txt",
                      "--set", "mix=0", "--format", "float"], environment: env).assertOK()
            let out = try readAll(dir + "/zero.wav")
            XCTAssertEqual(Double(out.left[Int(0.01 * rate)]), early, accuracy: 1e-3, line)
            XCTAssertEqual(Double(out.left[Int(0.15 * rate)]), minus6, accuracy: 1e-4, line)
        }
    }

    /// The README's exit 74 (I/O error): a render whose writes fail (the file-size limit of the
    /// process, `ulimit -f`, with SIGXFSZ ignored so the write returns EFBIG) exits 74 with one
    /// line naming the output, and leaves nothing at the output path nor a temp file.
    func testAFailedWriteIsExit74WithOneLineAndNothingLeft() throws {
        try writeTone(dir + "/long.wav", seconds: 10)
        try FileManager.default.createDirectory(atPath: dir + "/full", withIntermediateDirectories: true)
        let output = dir + "/full/out.wav"
        let r = try rack(["trap '' XFSZ; ulimit -f 64; exec \"$0\" render \"$1\" \"$2\"", rackBinary, dir + "/long.wav", output],
                         environment: env, shell: true)
        XCTAssertEqual(r.status, 74, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("rack: I/O error on '\(output)'"), r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/full"), [], "nothing left behind")
    }

    /// The README: `rack render` draws its progress bar "on a terminal only". Under a pseudo
    /// terminal (util-linux `script`) stderr carries the bar up to 100 % and the summary line;
    /// through a pipe, nothing.
    func testTheProgressBarIsDrawnOnATerminalOnly() throws {
        let piped = try rack(["render", dir + "/in.wav", dir + "/piped.wav"], environment: env)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(piped.stderr.hasPrefix("rack: rendered 1.50 s to '" + dir + "/piped.wav' (48000 Hz, 16;"), piped.stderr)
        XCTAssertEqual(piped.stderr.split(separator: "\n").count, 1, "no bar through a pipe, one closing line: \(piped.stderr)")
        let command = [rackBinary, "render", dir + "/in.wav", dir + "/tty.wav"].map { "'" + $0 + "'" }.joined(separator: " ")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qec", command, "/dev/null"]
        p.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let seen = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, seen)
        XCTAssertTrue(seen.contains("\rtty.wav [" + String(repeating: "#", count: 30) + "] 100%"), seen)
        XCTAssertTrue(seen.contains("rack: rendered 1.50 s to '" + dir + "/tty.wav' (48000 Hz, 16;"), seen)
    }

    func testRenderKeepsLengthFormatAndAddsTheTail() throws {
        try rack(["render", dir + "/in.wav", dir + "/out.wav", "--preset", "Warm"], environment: env).assertOK()
        let out = try readAll(dir + "/out.wav")
        XCTAssertEqual(out.info.frames, 72_000)
        XCTAssertEqual(out.info.sampleFormat, .pcm16)
        XCTAssertTrue(out.left.allSatisfy(\.isFinite))
        XCTAssertGreaterThan(out.left.map(abs).max()!, 0.05)

        try rack(["render", dir + "/in.wav", dir + "/tail.flac", "--tail", "1", "--format", "24"], environment: env).assertOK()
        let tail = try readAll(dir + "/tail.flac")
        XCTAssertEqual(tail.info.frames, 72_000 + 48_000)
        XCTAssertEqual(tail.info.sampleFormat, .pcm24)
        // The tail rings on after the input stops.
        XCTAssertGreaterThan(tail.left[80_000..<90_000].map(abs).max()!, 1e-4)

        try rack(["render", dir + "/in.wav", dir + "/up.wav", "--rate", "96000", "--format", "float"], environment: env).assertOK()
        let up = try readAll(dir + "/up.wav")
        XCTAssertEqual(up.info.sampleRate, 96_000)
        XCTAssertEqual(up.info.frames, 144_000)
        XCTAssertEqual(up.info.sampleFormat, .float)
    }

    func testFloatInputToFLACIsWrittenAt24BitsWithOneLineSaid() throws {
        // FLAC cannot store float, so 24-bit is picked and said (as sox does).
        try rack(["render", dir + "/in.wav", dir + "/f.wav", "--format", "float"], environment: env).assertOK()
        let r = try rack(["render", dir + "/f.wav", dir + "/out.flac", "--preset", "Warm"], environment: env)
        r.assertOK()
        let said = r.stderr.split(separator: "\n")
        XCTAssertEqual(said.first, "rack: FLAC cannot store float samples; writing 24-bit", r.stderr)
        XCTAssertEqual(said.count, 2, "that line and the closing one: \(r.stderr)")
        XCTAssertTrue(said.last?.hasPrefix("rack: rendered ") == true, r.stderr)
        let flac = try readAll(dir + "/out.flac")
        XCTAssertEqual(flac.info.sampleFormat, .pcm24)
        XCTAssertEqual(flac.info.frames, 72_000)
        // A float asked for by name is still refused: the user chose it.
        let asked = try rack(["render", dir + "/f.wav", dir + "/o2.flac", "--format", "float"], environment: env)
        XCTAssertEqual(asked.status, 73, asked.stderr)
        XCTAssertTrue(asked.stderr.contains("FLAC cannot store float"), asked.stderr)
        // WAV keeps the input's float.
        let wav = try rack(["render", dir + "/f.wav", dir + "/o3.wav"], environment: env)
        wav.assertOK()
        XCTAssertTrue(wav.stderr.hasPrefix("rack: rendered "), "the closing line alone: \(wav.stderr)")
        XCTAssertEqual(wav.stderr.split(separator: "\n").count, 1, wav.stderr)
        XCTAssertEqual(try readAll(dir + "/o3.wav").info.sampleFormat, .float)
    }

    func testNegativeNumbersAreValuesAndHelpLinesNeverWrapToColumnZero() throws {
        // A negative value is a value: the error says what is wrong with it.
        let tail = try rack(["render", dir + "/in.wav", dir + "/o.wav", "--tail", "-1"], environment: env)
        XCTAssertEqual(tail.status, 64)
        XCTAssertEqual(tail.stderr, "rack: --tail must be 0…3600 seconds\n")
        // A user preset's negative number names it, with --preset and with `presets show`.
        try FileManager.default.createDirectory(atPath: dir + "/config/rack/presets", withIntermediateDirectories: true)
        try "{\"name\": \"Mine\", \"cutoff\": 500, \"resonance\": 1, \"mix\": 20, \"gain\": -1, \"room\": \"plate\"}"
            .write(toFile: dir + "/config/rack/presets/Mine.json", atomically: true, encoding: .utf8)
        let show = try rack(["presets", "show", "-1"], environment: env)
        show.assertOK()
        XCTAssertTrue(show.stdout.contains("\"Mine\""), show.stdout)
        try rack(["render", dir + "/in.wav", dir + "/mine.wav", "--preset", "-1"], environment: env).assertOK()
        let unknown = try rack(["render", dir + "/in.wav", dir + "/o.wav", "--preset", "-7"], environment: env)
        XCTAssertEqual(unknown.status, 65, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("-7"), unknown.stderr)
        // Parameter lines fit 80 columns, continuing under a hanging indent (not at column 0).
        let help = try rack(["--help"], environment: env)
        let section = help.stdout.components(separatedBy: "Parameters:\n")[1].components(separatedBy: "\n\n")[0]
        let lines = section.split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 5, help.stdout)
        for line in lines {
            XCTAssertLessThanOrEqual(line.count, 79, String(line))
            XCTAssertTrue(line.hasPrefix("  "), "wrapped to column 0: \(line)")
        }
    }

    func testVersionIsOneLineAndTheREADMESaysTheSame() throws {
        let r = try rack(["--version"], environment: env)
        r.assertOK()
        let pattern = #"^rack ([0-9]+\.[0-9]+\.[0-9]+) \(OSC namespace ([0-9]+\.[0-9]+\.[0-9]+)\)\n$"#
        let match = try XCTUnwrap(r.stdout.range(of: pattern, options: .regularExpression), r.stdout)
        XCTAssertEqual(match, r.stdout.startIndex..<r.stdout.endIndex)
        // The README quotes the line exactly.
        let text = try Documentation.text()
        XCTAssertTrue(text.contains("`" + r.stdout.dropLast() + "`"), "README does not quote `\(r.stdout.dropLast())`")
    }

    func testBlockSizeDoesNotChangeTheSamples() throws {
        let automation = dir + "/a.txt"
        try """
            0.0   /rack/preset  Warm
            0.3   /rack/cutoff  3000  0.4
            0.5   /rack/room    plate
            0.77  /rack/mix     90   0.2
            1.0   /rack/gain    -6
            """.write(toFile: automation, atomically: true, encoding: .utf8)
        // The same samples bit for bit, both channels (the files' headers differ: the PEAK
        // chunk carries the time of writing).
        var outputs: [[UInt32]] = []
        for block in ["64", "333", "4096"] {
            let out = dir + "/b\(block).wav"
            try rack(["render", dir + "/in.wav", out, "--automation", automation, "--block", block, "--format", "float"], environment: env).assertOK()
            let (left, right, _) = try readAll(out)
            outputs.append(left.map(\.bitPattern) + right.map(\.bitPattern))
        }
        XCTAssertGreaterThan(outputs[0].count, 2 * 48_000, "a second and more of stereo")
        XCTAssertTrue(outputs[0] == outputs[1], "--block 333 rendered other samples than --block 64")
        XCTAssertTrue(outputs[0] == outputs[2], "--block 4096 rendered other samples than --block 64")
    }

    func testEveryRoomRendersCleanly() throws {
        for room in ["smallRoom", "mediumRoom", "largeRoom", "largeRoom2", "mediumChamber", "largeChamber", "plate",
                     "mediumHall", "mediumHall2", "mediumHall3", "largeHall", "largeHall2", "cathedral"] {
            let out = dir + "/\(room).wav"
            try rack(["render", dir + "/in.wav", out, "--set", "room=\(room)", "--set", "mix=100", "--format", "float"], environment: env).assertOK()
            let l = try readAll(out).left
            XCTAssertTrue(l.allSatisfy(\.isFinite), room)
            // Click-free: no step between samples larger than a full-scale sine at 220 Hz
            // and its fifth could make (the input's own steepest slope is about 0.04).
            var maxStep: Float = 0
            for i in 1..<l.count { maxStep = max(maxStep, abs(l[i] - l[i - 1])) }
            XCTAssertLessThan(maxStep, 0.1, room)
        }
    }

    func testExitCodesAndOneLineErrors() throws {
        func expect(_ args: [String], _ code: Int32, _ fragment: String, line: UInt = #line) throws {
            let r = try rack(args, environment: env)
            XCTAssertEqual(r.status, code, "\(args) → \(r.stderr)", line: line)
            XCTAssertTrue(r.stderr.contains(fragment), "\(args) → \(r.stderr)", line: line)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr, line: line)
            // The program's name, once, in front of every message.
            XCTAssertTrue(r.stderr.hasPrefix("rack: ") && !r.stderr.contains("rack: rack:"), r.stderr, line: line)
        }
        let input = dir + "/in.wav"
        try expect(["render", dir + "/missing.wav", dir + "/o.wav"], 66, "rack: cannot open '\(dir)/missing.wav': no such file\n")
        mkfifo(dir + "/fifo.wav", 0o644)
        try expect(["render", dir + "/fifo.wav", dir + "/o.wav"], 66, "fifo.wav")
        try "not audio".write(toFile: dir + "/text.wav", atomically: true, encoding: .utf8)
        try expect(["render", dir + "/text.wav", dir + "/o.wav"], 65, "text.wav")
        try expect(["render", input, dir + "/o.mp9"], 73, "o.mp9")
        try expect(["render", input, dir + "/no/such/dir/o.wav"], 73, "o.wav")
        try expect(["render", input, dir + "/o.wav", "--set", "cutoff=loud"], 65, "loud")
        try expect(["render", input, dir + "/o.wav", "--set", "colour=3"], 65, "colour")
        try expect(["render", input, dir + "/o.wav", "--preset", "Nope"], 65, "Nope")
        try "0 /rack/cutoff 100\n1 /rack/cutof 100\n".write(toFile: dir + "/bad.txt", atomically: true, encoding: .utf8)
        try expect(["render", input, dir + "/o.wav", "--automation", dir + "/bad.txt"], 65, "bad.txt:2:")
        try expect(["render", input, dir + "/o.wav", "--block", "0"], 64, "--block")
        try expect(["render", input], 64, "Missing")
        // Nothing was left behind by any of the failures.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("o.") || $0.contains("rack-tmp") }
        XCTAssertEqual(leftovers, [])
    }

    func testCheckReportsLineNumbers() throws {
        try "# ok\n0 /rack/preset Warm\n2 /rack/cutoff 800 1.5\n4 /rack/mix 80 0.5\n".write(toFile: dir + "/good.txt", atomically: true, encoding: .utf8)
        let good = try rack(["check", dir + "/good.txt"], environment: env)
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertTrue(good.stdout.contains("3 events"))
        try "0 /rack/cutoff 100 2\n1 /rack/cutoff 200\n0.5 /rack/mix 3\n2 /rack/room attic\n".write(toFile: dir + "/bad.txt", atomically: true, encoding: .utf8)
        let bad = try rack(["check", dir + "/bad.txt"], environment: env)
        XCTAssertEqual(bad.status, 65)
        XCTAssertTrue(bad.stderr.contains("bad.txt:2: warning: interrupts the ramp of cutoff from line 1"), bad.stderr)
        for line in [3, 4] { XCTAssertTrue(bad.stderr.contains("bad.txt:\(line): error"), bad.stderr) }
        XCTAssertEqual(try rack(["check", dir + "/none.txt"], environment: env).status, 66)
    }

    /// An interrupted ramp is a warning (exit 0); --strict makes every warning an error (65).
    func testCheckStrictMakesWarningsErrors() throws {
        try "0 /rack/cutoff 100 2\n1 /rack/cutoff 200\n2 /rack/gain 40\n".write(toFile: dir + "/w.txt", atomically: true, encoding: .utf8)
        let lenient = try rack(["check", dir + "/w.txt"], environment: env)
        XCTAssertEqual(lenient.status, 0, lenient.stderr)
        XCTAssertTrue(lenient.stdout.contains("3 events, 2 warnings"), lenient.stdout)
        let strict = try rack(["check", "--strict", dir + "/w.txt"], environment: env)
        XCTAssertEqual(strict.status, 65, strict.stderr)
        XCTAssertEqual(strict.stderr, "rack: \(dir)/w.txt:2: error: interrupts the ramp of cutoff from line 1 (running until 2 s): it stops where it has got to\n"
                       + "rack: \(dir)/w.txt:3: error: gain 40 clamped to 12 dB\n")
        try rack(["render", dir + "/in.wav", dir + "/w.wav", "--automation", dir + "/w.txt"], environment: env).assertOK()
    }

    /// Defect 5: rates the engine cannot serve are bad data (65), not a trap, and nothing is
    /// left behind; usage errors are one line (64).
    func testUnsupportedRatesAndUsageErrorsAreOneLine() throws {
        func expect(_ args: [String], _ code: Int32, _ fragment: String, line: UInt = #line) throws {
            let r = try rack(args, environment: env)
            XCTAssertEqual(r.status, code, "\(args) → \(r.stderr)", line: line)
            XCTAssertTrue(r.stderr.contains(fragment), "\(args) → \(r.stderr)", line: line)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr, line: line)
            XCTAssertTrue(r.stderr.hasPrefix("rack: ") && !r.stderr.contains("rack: rack:"), r.stderr, line: line)
        }
        try writeTone(dir + "/4k.wav", seconds: 0.5, rate: 4_000, left: ToneChannel(hz: 100, amplitude: 0.4), right: ToneChannel(hz: 150, amplitude: 0.3))
        try expect(["render", dir + "/4k.wav", dir + "/o.wav"], 65, "4000 Hz is not supported")
        try writeTone(dir + "/705k.wav", seconds: 0.05, rate: 705_600, left: ToneChannel(hz: 1000, amplitude: 0.4), right: ToneChannel(hz: 1500, amplitude: 0.3))
        try expect(["render", dir + "/705k.wav", dir + "/o.wav"], 65, "705600 Hz is not supported")
        try rack(["render", dir + "/705k.wav", dir + "/ok.wav", "--rate", "48000"], environment: env).assertOK()
        try rack(["render", dir + "/4k.wav", dir + "/ok4.wav", "--rate", "8000"], environment: env).assertOK()
        try "1e300 /rack/cutoff 100\n".write(toFile: dir + "/far.txt", atomically: true, encoding: .utf8)
        try expect(["render", dir + "/in.wav", dir + "/o.wav", "--automation", dir + "/far.txt"], 65, "far.txt:1:")
        try expect(["plot", dir + "/far.txt", "-o", dir + "/far.svg"], 65, "far.txt:1:")   // the picture is still drawn (README)
        try expect(["render", dir + "/in.wav", dir + "/o.wav", "--rate", "4000"], 64, "--rate must be 8000…384000 Hz")
        try expect(["run", "--allow", ""], 64, "--allow '' is not an IPv4 address")
        try expect(["run", "--allow", "999.1.1.1"], 64, "--allow '999.1.1.1'")
        try expect(["run", "--allow", "10.0.0.0/"], 64, "--allow '10.0.0.0/'")
        try expect(["render", dir + "/in.wav"], 64, "Missing expected argument")
        try expect(["check", dir + "/w.txt", "--length", "nan"], 64, "--length")
        try expect(["bogus"], 64, "bogus")
        let help = try rack(["render", "--help"], environment: env)
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("USAGE"), help.stdout)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("o.") || $0.contains("rack-tmp") }
        XCTAssertEqual(leftovers, [])
    }

    func testPresetsCommand() throws {
        let list = try rack(["presets", "list"], environment: env)
        XCTAssertEqual(list.status, 0)
        for name in ["Prominent", "Bright", "Warm"] { XCTAssertTrue(list.stdout.contains(name)) }
        let show = try rack(["presets", "show", "Warm"], environment: env)
        XCTAssertTrue(show.stdout.contains("\"cutoff\": 384"))
        XCTAssertEqual(try rack(["presets", "show", "Nope"], environment: env).status, 65)
        // A user preset shows up, numbered below zero.
        try FileManager.default.createDirectory(atPath: dir + "/config/rack/presets", withIntermediateDirectories: true)
        try "{\"name\": \"Mine\", \"cutoff\": 500, \"resonance\": 1, \"mix\": 20, \"gain\": -1, \"room\": \"plate\"}"
            .write(toFile: dir + "/config/rack/presets/Mine.json", atomically: true, encoding: .utf8)
        let mine = try rack(["presets", "list"], environment: env)
        XCTAssertTrue(mine.stdout.contains("-1  Mine"), mine.stdout)
        // Names of any script, whole in the list; lookups ignore case; the
        // unknown-preset error lists the presets.
        let long = "Café Hall " + String(repeating: "x", count: 54)
        try "{\"name\": \"\(long)\", \"cutoff\": 500, \"resonance\": 1, \"mix\": 20, \"gain\": -1, \"room\": \"Plate\"}"
            .write(toFile: dir + "/config/rack/presets/\(long).json", atomically: true, encoding: .utf8)
        let both = try rack(["presets", "list"], environment: env)
        XCTAssertTrue(both.stdout.contains("-2  \(long) user"), both.stdout)
        XCTAssertTrue(try rack(["presets", "show", "WARM"], environment: env).stdout.contains("\"cutoff\": 384"))
        XCTAssertTrue(try rack(["presets", "show", "café hall " + String(repeating: "X", count: 54)], environment: env).stdout.contains("Café"))
        let unknown = try rack(["presets", "show", "Nope"], environment: env)
        XCTAssertEqual(unknown.status, 65)
        XCTAssertTrue(unknown.stderr.contains("unknown preset 'Nope' (one of 'Big Hall', 'Bright',") && unknown.stderr.contains("'Mine'"), unknown.stderr)
    }

    /// With `HOME=""` and no XDG variable the demo loop went to `/.cache/rack` at
    /// the filesystem root; it is refused with one line (73). With `XDG_CACHE_HOME` it goes there.
    func testTheDemoLoopNeedsAHome() throws {
        let refused = try rack(["demo-loop"], environment: ["HOME": ""], unsetting: ["XDG_CACHE_HOME"])
        XCTAssertEqual(refused.status, 73, refused.stderr)
        XCTAssertEqual(refused.stderr, "rack: cannot write the demo loop: neither XDG_CACHE_HOME nor HOME names an absolute directory\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/.cache/rack/demo-loop.wav"))
        let cached = try rack(["demo-loop"], environment: ["HOME": "", "XDG_CACHE_HOME": dir + "/cache"])
        cached.assertOK()
        XCTAssertEqual(cached.stdout, dir + "/cache/rack/demo-loop.wav\n")
    }

    /// A file name that is not UTF-8 (`$'\xff\xfe-x.wav'`) was repaired to U+FFFD
    /// and failed with "no such file" (66). Its bytes go from argv to open(2) as they are, for
    /// render (input, output, automation), check and plot; a message shows them escaped.
    func testFileNamesThatAreNotUTF8() throws {
        let odd: [UInt8] = [0xFF, 0xFE]
        func path(_ suffix: String) -> String { dir + "/" + PathText.fromBytes(odd + Array(suffix.utf8)) }
        let input = path("-in.wav"), output = path("-out.wav"), automation = path("-auto.txt"), plot = path("-plot.svg")
        try rack(["render", dir + "/in.wav", dir + "/plain.wav"], environment: env).assertOK()
        XCTAssertEqual(rename(dir + "/plain.wav", PathText.bytes(input).map { CChar(bitPattern: $0) } + [0]), 0)
        let text = "0 /rack/cutoff 800\n"
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/auto.txt", contents: Data(text.utf8)))
        XCTAssertEqual(rename(dir + "/auto.txt", PathText.bytes(automation).map { CChar(bitPattern: $0) } + [0]), 0)
        try rackBytes(["render", input, output, "--automation", automation]).assertOK()
        XCTAssertEqual(access(PathText.bytes(output).map { CChar(bitPattern: $0) } + [0], R_OK), 0, "the output has the very bytes")
        try rackBytes(["check", automation]).assertOK()
        try rackBytes(["plot", automation, "-o", plot]).assertOK()
        XCTAssertEqual(access(PathText.bytes(plot).map { CChar(bitPattern: $0) } + [0], R_OK), 0)
        let missing = try rackBytes(["render", path("-missing.wav"), output])
        XCTAssertEqual(missing.status, 66)
        XCTAssertTrue(missing.stderr.contains("\\xFF\\xFE-missing.wav': no such file"), missing.stderr)
    }

    /// Runs rack with arguments given as `PathText` strings, passed to the process as their very
    /// bytes (Foundation's Process would write them as UTF-8): through `sh`, each argument spelt
    /// as `printf` octal escapes.
    private func rackBytes(_ args: [String]) throws -> Run {
        let spelt = args.map { arg in
            "\"$(printf '" + PathText.bytes(arg).map { "\\" + String($0, radix: 8) }.joined() + "')\""
        }
        return try rack(["exec '\(rackBinary)' " + spelt.joined(separator: " ")], environment: env, shell: true)
    }
}

extension Run {
    func assertOK(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(status, 0, stderr, file: file, line: line)
    }
}
