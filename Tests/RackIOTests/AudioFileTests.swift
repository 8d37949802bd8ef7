import XCTest
import RackTestSupport
import Foundation
import RackEngine
@testable import RackIO

#if canImport(Glibc)
import Glibc
#endif

/// Tests of the audio-file layer against real files written to a temporary directory (by the
/// writer under test, or byte by byte for malformed cases).
final class AudioFileTests: XCTestCase {
    private var dir: String = ""

    override func setUpWithError() throws {
        dir = try makeTemporaryDirectory("rack-io-tests")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    // MARK: - Helpers

    private func path(_ name: String) -> String { dir + "/" + name }

    /// `frames` samples of `amplitude · sin(2π f n / rate + phase)`.
    private func sine(_ frequency: Double, rate: Double, frames: Int, amplitude: Double = 0.5, phase: Double = 0) -> [Float] {
        (0..<frames).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / rate + phase)) }
    }

    private func write(_ path: String, rate: Double = 44100, format: SampleFormat, left: [Float], right: [Float],
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let w = try AudioFileWriter(path: path, sampleRate: rate, format: format)
        try w.write(left: left, right: right, frames: left.count)
        try w.commit()
    }

    private func readAll(_ path: String) throws -> (info: AudioFileInfo, left: [Float], right: [Float]) {
        let r = try AudioFileReader(path: path)
        var left = [Float](), right = [Float]()
        var l = [Float](repeating: 0, count: 1000), rr = [Float](repeating: 0, count: 1000)
        while true {
            let n = try r.read(left: &l, right: &rr, frames: 1000)
            if n == 0 { break }
            left += l[0..<n]
            right += rr[0..<n]
        }
        return (r.info, left, right)
    }

    /// Reads `total` frames from `reader` in chunks of `chunk`, stopping early at the end.
    private func readResampled(_ reader: ResamplingReader, total: Int = .max, chunk: Int = 1000) throws -> (left: [Float], right: [Float]) {
        var left = [Float](), right = [Float]()
        var l = [Float](repeating: 0, count: chunk), r = [Float](repeating: 0, count: chunk)
        while left.count < total {
            let want = min(chunk, total - left.count)
            let n = try reader.read(left: &l, right: &r, frames: want)
            if n == 0 { break }
            XCTAssertTrue(n == want || !reader.loop, "short read while looping")
            left += l[0..<n]
            right += r[0..<n]
        }
        return (left, right)
    }

    /// A canonical 16-bit PCM WAV, built byte by byte. `declaredDataBytes` overrides the data
    /// chunk size written in the header.
    private func makeWAV(_ path: String, channels: Int, rate: Int = 44100, samples: [Int16],
                         declaredDataBytes: UInt32? = nil) throws {
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        let dataBytes = UInt32(samples.count * 2)
        d.append(contentsOf: Array("RIFF".utf8)); u32(36 + dataBytes)
        d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); u32(16)
        u16(1); u16(UInt16(channels)); u32(UInt32(rate)); u32(UInt32(rate * channels * 2))
        u16(UInt16(channels * 2)); u16(16)
        d.append(contentsOf: Array("data".utf8)); u32(declaredDataBytes ?? dataBytes)
        for s in samples { u16(UInt16(bitPattern: s)) }
        try d.write(to: URL(fileURLWithPath: path))
    }

    private func assertThrows(_ expected: (AudioFileError) -> Bool, status: ExitStatus,
                              file: StaticString = #filePath, line: UInt = #line,
                              _ body: () throws -> Void) {
        do {
            try body()
            XCTFail("no error thrown", file: file, line: line)
        } catch let error as AudioFileError {
            XCTAssertTrue(expected(error), "unexpected error \(error)", file: file, line: line)
            XCTAssertEqual(error.status, status, file: file, line: line)
            XCTAssertFalse(error.description.contains("\n"), file: file, line: line)
            // The CLI puts the program's name in front; the error itself does not carry it.
            XCTAssertFalse(error.description.hasPrefix("rack: "), file: file, line: line)
        } catch {
            XCTFail("not an AudioFileError: \(error)", file: file, line: line)
        }
    }

    private func directoryEntries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    }

    // MARK: - Containers and errors

    func testContainerFromExtension() {
        XCTAssertEqual(AudioContainer(path: "a.wav"), .wav)
        XCTAssertEqual(AudioContainer(path: "dir.x/A.WAVE"), .wav)
        XCTAssertEqual(AudioContainer(path: "a.Flac"), .flac)
        XCTAssertEqual(AudioContainer(path: "a.ogg"), .ogg)
        XCTAssertEqual(AudioContainer(path: "/x/a.OGA"), .ogg)
        XCTAssertEqual(AudioContainer(path: "a.MP3"), .mp3)
        XCTAssertNil(AudioContainer(path: "a.aac"))
        XCTAssertNil(AudioContainer(path: "wav"))
        XCTAssertNil(AudioContainer(path: "dir.wav/file"))
        XCTAssertNil(AudioContainer(path: ".wav"))
    }

    func testErrorCodesAndMessages() {
        XCTAssertEqual(AudioFileError.missing(path: "x.wav").description, "cannot open 'x.wav': no such file")
        XCTAssertEqual(AudioFileError.missing(path: "x").status, .noInput)
        XCTAssertEqual(AudioFileError.notRegularFile(path: "x").status, .noInput)
        XCTAssertEqual(AudioFileError.unreadable(path: "x", reason: "r").status, .noInput)
        XCTAssertEqual(AudioFileError.badData(path: "x", reason: "r").status, .dataError)
        XCTAssertEqual(AudioFileError.tooManyChannels(path: "x", channels: 3).status, .dataError)
        XCTAssertEqual(AudioFileError.empty(path: "x").status, .dataError)
        XCTAssertEqual(AudioFileError.cannotCreate(path: "x", reason: "r").status, .cannotCreate)
        XCTAssertEqual(AudioFileError.io(path: "x", reason: "r").status, .ioError)
        // One line even with control characters in the path or the reason.
        let e = AudioFileError.badData(path: "a\nb.wav", reason: "bad\r\nthing")
        XCTAssertFalse(e.description.contains("\n"))
        XCTAssertFalse(e.description.contains("\r"))
        XCTAssertTrue(e.description.contains("a\\nb.wav"))
    }

    // MARK: - Round trips

    private func roundTrip(_ name: String, _ format: SampleFormat, tolerance: Float,
                           container: AudioContainer, expectFormat: SampleFormat?,
                           file: StaticString = #filePath, line: UInt = #line) throws {
        let n = 11025
        let left = sine(1000, rate: 44100, frames: n, amplitude: 0.9)
        let right = sine(441, rate: 44100, frames: n, amplitude: 0.7, phase: 1)
        let p = path(name)
        try write(p, format: format, left: left, right: right)
        let (info, l, r) = try readAll(p)
        XCTAssertEqual(info.frames, Int64(n), file: file, line: line)
        XCTAssertEqual(info.sampleRate, 44100, file: file, line: line)
        XCTAssertEqual(info.channels, 2, file: file, line: line)
        XCTAssertEqual(info.container, container, file: file, line: line)
        XCTAssertEqual(info.sampleFormat, expectFormat, file: file, line: line)
        XCTAssertEqual(info.durationSeconds, 0.25, accuracy: 1e-12, file: file, line: line)
        XCTAssertEqual(l.count, n, file: file, line: line)
        guard l.count == n, r.count == n else { return }
        var worst: Float = 0
        for i in 0..<n { worst = max(worst, abs(l[i] - left[i]), abs(r[i] - right[i])) }
        XCTAssertLessThanOrEqual(worst, tolerance, "\(name): max error \(worst)", file: file, line: line)
    }

    func testRoundTripWAV16() throws {
        try roundTrip("a.wav", .pcm16, tolerance: 1.0 / 32768, container: .wav, expectFormat: .pcm16)
    }

    func testRoundTripWAV24() throws {
        try roundTrip("a.wav", .pcm24, tolerance: 1.0 / 8_388_608, container: .wav, expectFormat: .pcm24)
    }

    func testRoundTripWAVFloatIsExact() throws {
        try roundTrip("a.WAV", .float, tolerance: 0, container: .wav, expectFormat: .float)
    }

    func testRoundTripFLAC16() throws {
        try roundTrip("a.flac", .pcm16, tolerance: 1.0 / 32768, container: .flac, expectFormat: .pcm16)
    }

    func testRoundTripFLAC24() throws {
        try roundTrip("a.flac", .pcm24, tolerance: 1.0 / 8_388_608, container: .flac, expectFormat: .pcm24)
    }

    func testRoundTripOggVorbisSNR() throws {
        let n = 22050
        let left = sine(1000, rate: 44100, frames: n, amplitude: 0.5)
        let right = sine(440, rate: 44100, frames: n, amplitude: 0.5)
        let p = path("a.ogg")
        try write(p, format: .pcm24 /* ignored */, left: left, right: right)
        let (info, l, r) = try readAll(p)
        XCTAssertEqual(info.container, .ogg)
        XCTAssertNil(info.sampleFormat)
        XCTAssertEqual(info.frames, Int64(n))
        XCTAssertEqual(l.count, n)
        guard l.count == n else { return }
        // Vorbis quantises its spectral floor in steps of a fraction of a dB, so a pure tone comes
        // back up to ~0.1 dB louder or softer: compare after matching the level (and check the
        // level separately). The raw waveform SNR on a sine is ~40 dB at any quality.
        for (orig, got) in [(left, l), (right, r)] {
            var cross = 0.0, power = 0.0
            for i in 0..<n { cross += Double(orig[i]) * Double(got[i]); power += Double(got[i]) * Double(got[i]) }
            let gain = cross / power
            XCTAssertEqual(20 * log10(gain), 0, accuracy: 0.25, "Vorbis level change")
            var signal = 0.0, noise = 0.0
            for i in 0..<n {
                let e = Double(orig[i]) - gain * Double(got[i])
                signal += Double(orig[i]) * Double(orig[i])
                noise += e * e
            }
            let snr = 10 * log10(signal / max(noise, 1e-30))
            XCTAssertGreaterThan(snr, 40, "Vorbis SNR \(snr) dB")
        }
    }

    func testTruncatedOggIsBadData() throws {
        let p = path("cut.ogg")
        let tone = sine(1000, rate: 44100, frames: 44100)
        try write(p, format: .pcm16, left: tone, right: tone)
        let size = try FileManager.default.attributesOfItem(atPath: p)[.size] as! UInt64
        let fh = try XCTUnwrap(FileHandle(forWritingAtPath: p))
        try fh.truncate(atOffset: size * 6 / 10)
        try fh.close()
        // libsndfile cannot find the end of the stream and reports an unknown length.
        assertThrows({ if case .badData(p, _) = $0 { true } else { false } }, status: .dataError) {
            let r = try AudioFileReader(path: p)
            var l = [Float](repeating: 0, count: 4096), rr = l
            while try r.read(left: &l, right: &rr, frames: 4096) > 0 {}
        }
    }

    func testIntegerOutputClipsInsteadOfWrapping() throws {
        let left: [Float] = [1.5, 1.0, -1.0, -1.5, 0.25]
        let right: [Float] = [-3, 2, 0, 0, 0]
        for (name, format) in [("c16.wav", SampleFormat.pcm16), ("c24.flac", .pcm24)] {
            let p = path(name)
            try write(p, format: format, left: left, right: right)
            let (_, l, r) = try readAll(p)
            XCTAssertEqual(l.count, 5)
            guard l.count == 5 else { continue }
            XCTAssertGreaterThan(l[0], 0.999, name)   // clipped to +full scale, not wrapped negative
            XCTAssertGreaterThan(l[1], 0.999, name)
            XCTAssertEqual(l[2], -1, name)
            XCTAssertEqual(l[3], -1, name)
            XCTAssertEqual(l[4], 0.25, name)
            XCTAssertEqual(r[0], -1, name)
            XCTAssertGreaterThan(r[1], 0.999, name)
        }
    }

    func testMonoIsCopiedToBothChannels() throws {
        let samples: [Int16] = (0..<3000).map { Int16(10000 * sin(Double($0) * 0.05)) }
        let p = path("mono.wav")
        try makeWAV(p, channels: 1, samples: samples)
        let (info, l, r) = try readAll(p)
        XCTAssertEqual(info.channels, 1)
        XCTAssertEqual(info.frames, 3000)
        XCTAssertEqual(l, r)
        XCTAssertEqual(l, samples.map { Float($0) / 32768 })
    }

    func testSeekThenRead() throws {
        let left = (0..<5000).map { Float($0) / 8192 }
        let p = path("ramp.wav")
        try write(p, format: .float, left: left, right: left.map { -$0 })
        let reader = try AudioFileReader(path: p)
        try reader.seek(toFrame: 4000)
        XCTAssertEqual(reader.position, 4000)
        var l = [Float](repeating: 0, count: 2000), r = l
        XCTAssertEqual(try reader.read(left: &l, right: &r, frames: 2000), 1000)
        XCTAssertEqual(Array(l[0..<1000]), Array(left[4000..<5000]))
        XCTAssertEqual(try reader.read(left: &l, right: &r, frames: 2000), 0)
        reader.close()
        assertThrows({ if case .io = $0 { true } else { false } }, status: .ioError) {
            _ = try reader.read(left: &l, right: &r, frames: 1)
        }
    }

    // MARK: - Bad input files

    func testThreeChannelsAreRefused() throws {
        let p = path("three.wav")
        try makeWAV(p, channels: 3, samples: [Int16](repeating: 100, count: 300))
        assertThrows({ $0 == .tooManyChannels(path: p, channels: 3) }, status: .dataError) {
            _ = try AudioFileReader(path: p)
        }
    }

    func testEmptyWAVIsRefused() throws {
        let p = path("empty.wav")
        try makeWAV(p, channels: 2, samples: [])
        assertThrows({ $0 == .empty(path: p) }, status: .dataError) { _ = try AudioFileReader(path: p) }
    }

    func testTextFileIsBadData() throws {
        let p = path("notes.wav")
        try "this is not audio\n".repeated(50).write(toFile: p, atomically: false, encoding: .utf8)
        assertThrows({ if case .badData(p, _) = $0 { true } else { false } }, status: .dataError) {
            _ = try AudioFileReader(path: p)
        }
        let z = path("zero.wav")
        XCTAssertTrue(FileManager.default.createFile(atPath: z, contents: Data()))
        assertThrows({ if case .badData(z, _) = $0 { true } else { false } }, status: .dataError) {
            _ = try AudioFileReader(path: z)
        }
    }

    func testTruncatedWAVIsBadData() throws {
        let p = path("cut.wav")
        let tone = sine(1000, rate: 44100, frames: 44100)
        try write(p, format: .pcm16, left: tone, right: tone)
        // libsndfile alone would silently shorten the file to the data present.
        let size = try FileManager.default.attributesOfItem(atPath: p)[.size] as! UInt64
        let fh = try XCTUnwrap(FileHandle(forWritingAtPath: p))
        try fh.truncate(atOffset: size * 6 / 10)
        try fh.close()
        assertThrows({ if case .badData(p, let why) = $0 { why.contains("truncated") } else { false } }, status: .dataError) {
            _ = try AudioFileReader(path: p)
        }
        // A hand-made header claiming more than is there, too.
        let q = path("claims.wav")
        try makeWAV(q, channels: 1, samples: [Int16](repeating: 7, count: 100), declaredDataBytes: 1000)
        assertThrows({ if case .badData(q, _) = $0 { true } else { false } }, status: .dataError) {
            _ = try AudioFileReader(path: q)
        }
    }

    func testTruncatedFLACIsBadDataWhenRead() throws {
        let p = path("cut.flac")
        let tone = sine(1000, rate: 44100, frames: 44100)
        try write(p, format: .pcm16, left: tone, right: tone)
        let size = try FileManager.default.attributesOfItem(atPath: p)[.size] as! UInt64
        let fh = try XCTUnwrap(FileHandle(forWritingAtPath: p))
        try fh.truncate(atOffset: size / 2)
        try fh.close()
        // The STREAMINFO header still promises 44100 frames; the decoder runs dry first.
        assertThrows({ if case .badData(p, _) = $0 { true } else { false } }, status: .dataError) {
            let r = try AudioFileReader(path: p)
            var l = [Float](repeating: 0, count: 4096), rr = l
            while try r.read(left: &l, right: &rr, frames: 4096) > 0 {}
        }
    }

    func testMissingFile() {
        let p = path("nope.wav")
        assertThrows({ $0 == .missing(path: p) }, status: .noInput) { _ = try AudioFileReader(path: p) }
        XCTAssertEqual(AudioFileError.missing(path: p).description, "cannot open '\(p)': no such file")
        let q = path("nodir/nope.wav")
        assertThrows({ $0 == .missing(path: q) }, status: .noInput) { _ = try ResamplingReader(path: q, targetRate: 48000) }
    }

    func testFIFOIsRefusedWithoutOpening() throws {
        let p = path("fifo.wav")
        XCTAssertEqual(mkfifo(p, 0o600), 0)
        let done = expectation(description: "open returned")
        let result = LockedBox<AudioFileError?>(nil)
        DispatchQueue.global().async {
            do { _ = try AudioFileReader(path: p) } catch let e as AudioFileError { result.value = e } catch {}
            done.fulfill()
        }
        if XCTWaiter().wait(for: [done], timeout: 5) != .completed {
            // It blocked in open(): release it by opening the write end, then fail.
            let fd = open(p, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            XCTFail("AudioFileReader blocked on a FIFO")
            return
        }
        XCTAssertEqual(result.value, .notRegularFile(path: p))
        XCTAssertEqual(result.value?.status, .noInput)
    }

    func testDirectoryAndDeviceAreNotRegularFiles() throws {
        let d = path("sub.wav")
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: false)
        assertThrows({ $0 == .notRegularFile(path: d) }, status: .noInput) { _ = try AudioFileReader(path: d) }
        assertThrows({ $0 == .notRegularFile(path: "/dev/null") }, status: .noInput) {
            _ = try AudioFileReader(path: "/dev/null")
        }
    }

    /// A file its reader may not open is exit 66 (EX_NOINPUT) with one line naming it. Root can
    /// read anything, so as root the check runs the `rack` executable as the unprivileged user
    /// `nobody` (65534) through `setpriv`, on a file of mode 000 in a directory that user can
    /// reach; otherwise it runs the reader in this process.
    func testUnreadableFile() throws {
        let p = path("secret.wav")
        let tone = sine(1000, rate: 44100, frames: 100)
        try write(p, format: .pcm16, left: tone, right: tone)
        XCTAssertEqual(chmod(p, 0), 0)
        guard getuid() == 0 else {
            assertThrows({ if case .unreadable(p, _) = $0 { true } else { false } }, status: .noInput) {
                _ = try AudioFileReader(path: p)
            }
            return
        }
        XCTAssertEqual(chmod(dir, 0o755), 0)
        let output = path("out.wav")
        let run = try runAsNobody([rackBinary, "render", p, output])
        XCTAssertEqual(run.status, ExitStatus.noInput.rawValue, run.stderr)
        let lines = run.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("rack: ") && run.stderr.contains(p), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "nothing half-written")
    }

    /// Runs `arguments` as the user and group 65534 (nobody), no supplementary groups.
    private func runAsNobody(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups"] + arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    // MARK: - Writer

    func testWriterRefusesUnknownExtension() {
        let p = path("out.aac")
        assertThrows({ if case .cannotCreate(p, let why) = $0 { why.contains("wav") && why.contains("flac") && why.contains("ogg") && why.contains("mp3") } else { false } },
                     status: .cannotCreate) {
            _ = try AudioFileWriter(path: p, sampleRate: 48000, format: .pcm16)
        }
        assertThrows({ if case .cannotCreate = $0 { true } else { false } }, status: .cannotCreate) {
            _ = try AudioFileWriter(path: path("noext"), sampleRate: 48000, format: .pcm16)
        }
    }

    func testWriterRefusesMissingDirectoryAndFloatFLAC() throws {
        let p = path("missing/out.wav")
        assertThrows({ if case .cannotCreate(p, _) = $0 { true } else { false } }, status: .cannotCreate) {
            _ = try AudioFileWriter(path: p, sampleRate: 48000, format: .pcm16)
        }
        let f = path("out.flac")
        assertThrows({ if case .cannotCreate(f, let why) = $0 { why.contains("float") } else { false } }, status: .cannotCreate) {
            _ = try AudioFileWriter(path: f, sampleRate: 48000, format: .float)
        }
        let d = path("adir.wav")
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: false)
        assertThrows({ if case .cannotCreate(d, _) = $0 { true } else { false } }, status: .cannotCreate) {
            _ = try AudioFileWriter(path: d, sampleRate: 48000, format: .pcm16)
        }
        let bad = path("rate.wav")
        assertThrows({ if case .cannotCreate(bad, _) = $0 { true } else { false } }, status: .cannotCreate) {
            _ = try AudioFileWriter(path: bad, sampleRate: 0, format: .pcm16)
        }
        let link = path("link.wav")
        XCTAssertEqual(symlink("/tmp/elsewhere.wav", link), 0)
        assertThrows({ if case .cannotCreate(link, _) = $0 { true } else { false } }, status: .cannotCreate) {
            _ = try AudioFileWriter(path: link, sampleRate: 48000, format: .pcm16)
        }
        XCTAssertEqual(try directoryEntries(), ["adir.wav", "link.wav"])
    }

    func testWriterUsesHiddenTempFileAndCommitLeavesOnlyTheResult() throws {
        let p = path("out.wav")
        let w = try AudioFileWriter(path: p, sampleRate: 48000, format: .pcm24)
        let tone = sine(1000, rate: 48000, frames: 4800)
        try w.write(left: tone, right: tone, frames: tone.count)
        let during = try directoryEntries()
        XCTAssertEqual(during.count, 1)
        XCTAssertTrue(during[0].hasPrefix(".out.wav.rack-tmp-"), during[0])
        XCTAssertEqual(during[0].count, ".out.wav.rack-tmp-".count + 6)
        XCTAssertFalse(FileManager.default.fileExists(atPath: p))
        try w.commit()
        XCTAssertEqual(try directoryEntries(), ["out.wav"])
        XCTAssertEqual(w.framesWritten, 4800)
        XCTAssertEqual(try AudioFileReader(path: p).info.frames, 4800)
        // Finished: further use is an I/O error, not a crash.
        assertThrows({ if case .io = $0 { true } else { false } }, status: .ioError) {
            try w.write(left: tone, right: tone, frames: 1)
        }
    }

    func testWriterAbortAndDeinitLeaveNothing() throws {
        let tone = sine(1000, rate: 48000, frames: 1000)
        let w = try AudioFileWriter(path: path("a.flac"), sampleRate: 48000, format: .pcm16)
        try w.write(left: tone, right: tone, frames: tone.count)
        w.abort()
        w.abort()
        XCTAssertEqual(try directoryEntries(), [])
        do {
            let w2 = try AudioFileWriter(path: path("b.ogg"), sampleRate: 48000, format: .float)
            try w2.write(left: tone, right: tone, frames: tone.count)
        }
        XCTAssertEqual(try directoryEntries(), [])
    }

    func testWriteFailureMidwayIsIOErrorAndLeavesNothing() throws {
        // Simulate a full disk: a file-size limit makes write() fail with EFBIG part-way.
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved), 0)
        let oldHandler = signal(SIGXFSZ, SIG_IGN)
        defer {
            _ = setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
            _ = signal(SIGXFSZ, oldHandler)
        }
        let p = path("big.wav")
        let w = try AudioFileWriter(path: p, sampleRate: 48000, format: .float)
        var limit = rlimit(rlim_cur: 64 * 1024, rlim_max: saved.rlim_max)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit), 0)
        let tone = sine(1000, rate: 48000, frames: 48000)   // 384 kB of float frames
        assertThrows({ if case .io(p, _) = $0 { true } else { false } }, status: .ioError) {
            try w.write(left: tone, right: tone, frames: tone.count)
        }
        _ = setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
        XCTAssertEqual(try directoryEntries(), [])
        assertThrows({ if case .io = $0 { true } else { false } }, status: .ioError) { try w.commit() }
        XCTAssertEqual(try directoryEntries(), [])
    }

    func testWriterReplacesExistingFileAtomically() throws {
        let p = path("take.wav")
        let old = [Float](repeating: 0.25, count: 100)
        try write(p, format: .float, left: old, right: old)
        XCTAssertEqual(chmod(p, 0o640), 0)
        let w = try AudioFileWriter(path: p, sampleRate: 44100, format: .float)
        let new = [Float](repeating: -0.5, count: 300)
        try w.write(left: new, right: new, frames: new.count)
        // Until commit the old file is intact.
        var (info, l, _) = try readAll(p)
        XCTAssertEqual(info.frames, 100)
        XCTAssertEqual(l, old)
        try w.commit()
        (info, l, _) = try readAll(p)
        XCTAssertEqual(info.frames, 300)
        XCTAssertEqual(l, new)
        XCTAssertEqual(try directoryEntries(), ["take.wav"])
        let mode = try FileManager.default.attributesOfItem(atPath: p)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o640)
    }

    // MARK: - Resampling reader

    func testResampledLengthIsExact() throws {
        let cases: [(from: Double, to: Double, frames: Int, chunk: Int)] = [
            (44100, 48000, 12345, 1000), (44100, 48000, 12345, 1), (48000, 44100, 12345, 4096),
            (22050, 48000, 1001, 333), (48000, 8000, 5003, 512), (44100, 96000, 3, 64),
        ]
        for c in cases {
            let p = path("len-\(Int(c.from))-\(c.frames).wav")
            let tone = sine(440, rate: c.from, frames: c.frames)
            try write(p, rate: c.from, format: .float, left: tone, right: tone)
            let reader = try ResamplingReader(path: p, targetRate: c.to)
            let expected = Int64((Double(c.frames) * c.to / c.from).rounded())
            XCTAssertEqual(reader.framesAtTargetRate, expected)
            let (l, _) = try readResampled(reader, chunk: c.chunk)
            XCTAssertEqual(Int64(l.count), expected, "\(c)")
            var scratch = [Float](repeating: 0, count: 8)
            var scratch2 = scratch
            XCTAssertEqual(try reader.read(left: &scratch, right: &scratch2, frames: 8), 0)
            XCTAssertEqual(reader.positionSeconds, Double(c.frames) / c.from, accuracy: 1e-9)
        }
    }

    func testResampled1kHzKeepsFrequencyAmplitudeAndPhase() throws {
        let p = path("sine.wav")
        let amplitude = 0.5
        let tone = sine(1000, rate: 44100, frames: 44100, amplitude: amplitude)
        try write(p, format: .float, left: tone, right: tone.map { -$0 })
        let reader = try ResamplingReader(path: p, targetRate: 48000)
        let (l, r) = try readResampled(reader, chunk: 700)
        XCTAssertEqual(l.count, 48000)
        guard l.count == 48000 else { return }
        let middle = 12000..<36000   // 0.5 s = exactly 500 periods
        // Frequency: zero crossings (2 per period) and a DFT bin.
        var crossings = 0
        for i in middle.dropFirst() where (l[i - 1] < 0) != (l[i] < 0) { crossings += 1 }
        XCTAssertEqual(Double(crossings), 1000, accuracy: 2)
        func magnitude(_ f: Double) -> Double {
            var re = 0.0, im = 0.0
            for i in middle {
                let w = 2 * Double.pi * f * Double(i) / 48000
                re += Double(l[i]) * cos(w)
                im += Double(l[i]) * sin(w)
            }
            return 2 * (re * re + im * im).squareRoot() / Double(middle.count)
        }
        let at1k = magnitude(1000)
        XCTAssertGreaterThan(at1k, 100 * magnitude(900))
        XCTAssertGreaterThan(at1k, 100 * magnitude(1100))
        // Amplitude within 0.1 dB (RMS · √2 over whole periods).
        var sum = 0.0
        for i in middle { sum += Double(l[i]) * Double(l[i]) }
        let peak = (2 * sum / Double(middle.count)).squareRoot()
        XCTAssertEqual(20 * log10(peak / amplitude), 0, accuracy: 0.1)
        XCTAssertEqual(20 * log10(at1k / amplitude), 0, accuracy: 0.1)
        // No added delay: the output is the same sine sampled at 48 kHz.
        var worst: Float = 0
        for i in middle { worst = max(worst, abs(l[i] - Float(amplitude * sin(2 * Double.pi * 1000 * Double(i) / 48000)))) }
        XCTAssertLessThan(worst, 1e-3)
        XCTAssertEqual(r, l.map { -$0 })
    }

    func testEqualRatesAreBitExactPassthrough() throws {
        let p = path("same.wav")
        var noise = SplitMix(seed: 48_000)   // seeded: the same samples every run
        let left = (0..<10000).map { _ in Float.random(in: -1...1, using: &noise) }
        let right = (0..<10000).map { _ in Float.random(in: -1...1, using: &noise) }
        try write(p, rate: 48000, format: .float, left: left, right: right)
        let reader = try ResamplingReader(path: p, targetRate: 48000)
        XCTAssertEqual(reader.framesAtTargetRate, 10000)
        let (l, r) = try readResampled(reader, chunk: 777)
        XCTAssertEqual(l, left)
        XCTAssertEqual(r, right)
    }

    func testLoopIsContinuousAcrossTheJoint() throws {
        // 1000 frames = exactly 10 periods of 441 Hz: looped, it is one continuous sine.
        let p = path("loop.wav")
        let tone = sine(441, rate: 44100, frames: 1000)
        try write(p, format: .float, left: tone, right: tone)

        let reader = try ResamplingReader(path: p, targetRate: 48000)
        reader.loop = true
        let total = 20000   // ≈ 18 passes
        let (l, _) = try readResampled(reader, total: total, chunk: 777)
        XCTAssertEqual(l.count, total)
        var worst: Float = 0
        for i in 300..<l.count {   // after the start-up transient of the filter
            worst = max(worst, abs(l[i] - Float(0.5 * sin(2 * Double.pi * 441 * Double(i) / 48000))))
        }
        XCTAssertLessThan(worst, 1e-3, "discontinuity at a loop point")
        XCTAssertEqual(reader.positionSeconds, (Double(total) / 48000).truncatingRemainder(dividingBy: 1000.0 / 44100), accuracy: 1e-9)

        // Passthrough loops too, sample for sample.
        let same = try ResamplingReader(path: p, targetRate: 44100)
        same.loop = true
        let (s, _) = try readResampled(same, total: 2500, chunk: 300)
        XCTAssertEqual(s, (0..<2500).map { tone[$0 % 1000] })

        // Turning looping off ends the stream.
        reader.loop = false
        let (rest, _) = try readResampled(reader, chunk: 1000)
        XCTAssertLessThan(rest.count, 20000)
        // …exactly at the end of a pass (the read-ahead decides which one).
        let all = Int64(total + rest.count)
        XCTAssertTrue((1...40).contains { Int64((Double($0 * 1000) * 48000 / 44100).rounded()) == all }, "\(all)")
    }

    func testSeekThenReadGivesTheSamplesFromThere() throws {
        let p = path("seek.wav")
        let tone = sine(1000, rate: 44100, frames: 44100)
        let ramp = (0..<44100).map { Float($0) / 44100 }
        try write(p, format: .float, left: tone, right: ramp)
        let full = try readResampled(try ResamplingReader(path: p, targetRate: 48000))
        XCTAssertEqual(full.left.count, 48000)

        let reader = try ResamplingReader(path: p, targetRate: 48000)
        try reader.seek(seconds: 0.5)
        XCTAssertEqual(reader.positionSeconds, 0.5, accuracy: 1e-12)
        let part = try readResampled(reader, total: 4800, chunk: 500)
        XCTAssertEqual(reader.positionSeconds, 0.6, accuracy: 1e-12)
        var worst: Float = 0
        for i in 0..<4800 {
            worst = max(worst, abs(part.left[i] - full.left[24000 + i]), abs(part.right[i] - full.right[24000 + i]))
        }
        XCTAssertLessThan(worst, 1e-4)
        // Seeking to the end reads nothing; seeking back to 0 replays from the start.
        try reader.seek(seconds: 5)
        XCTAssertEqual(try readResampled(reader).left.count, 0)
        try reader.seek(seconds: 0)
        let again = try readResampled(reader, total: 1000)
        XCTAssertEqual(again.left, Array(full.left[0..<1000]))

        // Passthrough seek is exact.
        let same = try ResamplingReader(path: p, targetRate: 44100)
        try same.seek(seconds: 0.5)
        XCTAssertEqual(try readResampled(same, total: 100).left, Array(tone[22050..<22150]))
    }

    func testResamplerReportsTruncatedFile() throws {
        let p = path("cut.flac")
        let tone = sine(1000, rate: 44100, frames: 44100)
        try write(p, format: .pcm16, left: tone, right: tone)
        let size = try FileManager.default.attributesOfItem(atPath: p)[.size] as! UInt64
        let fh = try XCTUnwrap(FileHandle(forWritingAtPath: p))
        try fh.truncate(atOffset: size / 2)
        try fh.close()
        let reader = try ResamplingReader(path: p, targetRate: 48000)
        assertThrows({ if case .badData = $0 { true } else { false } }, status: .dataError) {
            var l = [Float](repeating: 0, count: 4096), r = l
            while try reader.read(left: &l, right: &r, frames: 4096) > 0 {}
        }
    }
}

/// A value shared with a background thread in a test.
private final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: T
    init(_ v: T) { _value = v }
    var value: T {
        get { lock.lock(); defer { lock.unlock() }; return _value }
        set { lock.lock(); _value = newValue; lock.unlock() }
    }
}

private extension String {
    func repeated(_ n: Int) -> String { String(repeating: self, count: n) }
}
