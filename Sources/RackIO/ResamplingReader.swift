// A reader that delivers a sound file at another rate (with seamless looping and seeking),
// through `SampleRateConverter`.

import CSndfile
import Foundation
import RackDSP

/// Streams a file converted to `targetRate` with libsamplerate (SRC_SINC_BEST_QUALITY), stereo;
/// passes through untouched (no SRC) when rates are equal. Supports looping (wraps to frame 0 at
/// end, seamlessly: the resampler keeps running across the loop point) and seeking (seconds, in
/// the file's timeline; resets the converter, pre-rolling it so that the output after a seek
/// matches what continuous playback gives there).
///
/// Not realtime-safe (it reads the file); meant for offline rendering or a feeder thread.
public final class ResamplingReader {
    /// The file being read.
    public let info: AudioFileInfo
    /// The output rate, in Hz.
    public let targetRate: Double
    /// When true, the file repeats without end: after its last frame comes frame 0 again, with
    /// the converter running continuously across the joint. Turning it off while playing ends
    /// the stream at the end of the pass being read (a few thousand frames of look-ahead may
    /// already belong to the next pass). Turning it on after the end restarts from frame 0.
    public var loop: Bool = false

    private let reader: AudioFileReader
    private let converter: SampleRateConverter?   // nil: equal rates, passthrough

    // Interleaved stereo input waiting for the converter.
    private let inCapacity = 8192
    private let inBuf: UniqueBuffer<Float>
    private var inStart = 0
    private var inCount = 0
    // Converter output before it is deinterleaved.
    private let outCapacity = 4096
    private let outBuf: UniqueBuffer<Float>

    // Positions in the "concatenated" timeline (pass k of a loop starts at input k·frames).
    /// Input index of the next frame to be handed to the converter.
    private var fedEnd: Int64 = 0
    /// Output index (target rate) of the next frame the converter produces.
    private var genPos: Int64 = 0
    /// Converter output below this index is pre-roll and discarded.
    private var skipUntil: Int64 = 0
    private var inputEnded = false   // end_of_input given
    private var drained = false      // converter has nothing more; pad with silence
    private var finished = false

    /// Opens `path` (see `AudioFileReader.init(path:)` for the checks) to be read at
    /// `targetRate` Hz. Throws `.badData` if the rate ratio is outside libsamplerate's 1/256…256.
    public init(path: String, targetRate: Double) throws(AudioFileError) {
        let reader = try AudioFileReader(path: path)
        self.reader = reader
        self.info = reader.info
        self.targetRate = targetRate
        if targetRate == reader.info.sampleRate {
            converter = nil
        } else {
            do {
                converter = try SampleRateConverter(inputRate: reader.info.sampleRate, outputRate: targetRate, channels: 2)
            } catch {
                throw .badData(path: path, reason: error.description)
            }
        }
        inBuf = UniqueBuffer(repeating: 0, count: inCapacity * 2)
        outBuf = UniqueBuffer(repeating: 0, count: outCapacity * 2)
    }

    /// Length of the whole file at the target rate, in frames:
    /// `round(info.frames * targetRate / info.sampleRate)`.
    public var framesAtTargetRate: Int64 { outputIndex(info.frames) }

    /// Position in seconds (file timeline) of the next frame read.
    public var positionSeconds: Double {
        if finished { return info.durationSeconds }
        let t = Double(max(genPos, skipUntil)) / targetRate
        let d = info.durationSeconds
        return d > 0 ? t.truncatingRemainder(dividingBy: d) : 0
    }

    /// The output index that corresponds to concatenated input index `i`.
    private func outputIndex(_ i: Int64) -> Int64 {
        Int64((Double(i) * targetRate / info.sampleRate).rounded())
    }

    /// Fills up to `frames` output frames into `left` and `right` (room for `frames` Floats
    /// each); returns the count produced — less than requested only at end of file when not
    /// looping, 0 = finished. Over a whole file the total equals `framesAtTargetRate` exactly.
    /// Throws `.badData`/`.io` for file errors (e.g. truncated data) and `.io` for converter errors.
    public func read(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                     frames: Int) throws(AudioFileError) -> Int {
        guard frames > 0 else { return 0 }
        if finished {
            guard loop else { return 0 }
            try seek(seconds: 0)
        }
        if converter == nil {
            return try readPassthrough(left: left, right: right, frames: frames)
        }
        return try readConverted(left: left, right: right, frames: frames)
    }

    private func readPassthrough(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                                 frames: Int) throws(AudioFileError) -> Int {
        var done = 0
        while done < frames {
            let n = try reader.read(left: left + done, right: right + done, frames: frames - done)
            done += n
            genPos += Int64(n)
            if n == 0, try !rewindForLoop() {
                finished = true
                break
            }
        }
        return done
    }

    private func readConverted(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                               frames: Int) throws(AudioFileError) -> Int {
        guard let converter else { return 0 }
        var done = 0
        var stalls = 0
        while done < frames {
            if drained {
                // The converter's tail was shorter than the exact length: pad with silence.
                let owed = outputIndex(fedEnd) - genPos
                if owed <= 0 { finished = true; break }
                var n = Int(min(owed, Int64(frames - done)))
                if genPos < skipUntil { n = Int(min(Int64(n), skipUntil - genPos)); genPos += Int64(n); continue }
                (left + done).update(repeating: 0, count: n)
                (right + done).update(repeating: 0, count: n)
                done += n
                genPos += Int64(n)
                continue
            }
            if !inputEnded && inCount < inCapacity / 2 { try refill() }

            let skip = max(skipUntil - genPos, 0)
            let want = Int(min(Int64(outCapacity), skip + Int64(frames - done)))
            let result: (inputUsed: Int, outputGenerated: Int)
            do {
                result = try converter.process(input: inBuf.base + inStart * 2, inputFrames: inCount,
                                               output: outBuf.base, outputFrames: want, endOfInput: inputEnded)
            } catch {
                throw .io(path: info.path, reason: error.description)
            }
            inStart += result.inputUsed
            inCount -= result.inputUsed
            if inCount == 0 { inStart = 0 }

            var generated = result.outputGenerated
            var target = Int64.max
            if inputEnded {
                target = outputIndex(fedEnd)
                generated = Int(min(Int64(generated), max(target - genPos, 0)))   // trim the tail
                if result.outputGenerated == 0 && inCount == 0 { drained = true }
            }
            let first = Int(min(Int64(generated), skip))
            let useful = generated - first
            if useful > 0 {
                Interleaving.split(outBuf.base + 2 * first, frames: useful, left: left + done, right: right + done)
            }
            done += useful
            genPos += Int64(generated)
            if genPos >= target { finished = true; break }

            if result.inputUsed == 0 && result.outputGenerated == 0 && !inputEnded {
                stalls += 1
                if stalls > 4 { throw .io(path: info.path, reason: "resampler made no progress") }
            } else {
                stalls = 0
            }
        }
        return done
    }

    /// Tops up the input buffer from the file, wrapping to frame 0 when looping, or marking the
    /// end of input.
    private func refill() throws(AudioFileError) {
        if inStart > 0 {
            if inCount > 0 { inBuf.base.update(from: inBuf.base + inStart * 2, count: inCount * 2) }
            inStart = 0
        }
        while inCount < inCapacity && !inputEnded {
            let n = try reader.readInterleaved(into: inBuf.base + inCount * 2, frames: inCapacity - inCount)
            inCount += n
            fedEnd += Int64(n)
            if n == 0, try !rewindForLoop() { inputEnded = true }
        }
    }

    /// At the end of the file: rewinds to frame 0 and returns `true` when looping, else `false`
    /// (the input has ended).
    private func rewindForLoop() throws(AudioFileError) -> Bool {
        guard loop else { return false }
        try reader.seek(toFrame: 0)
        return true
    }

    /// Moves to `seconds` in the file's timeline (clamped to 0…duration; rounded to the nearest
    /// file frame). Resets the converter and pre-rolls it from a little earlier in the file, so
    /// the frames that follow match continuous playback: identical when the rate ratio is a
    /// simple fraction (44.1 ↔ 48 kHz, 48 ↔ 96 kHz, …), otherwise shifted by less than half an
    /// output frame.
    public func seek(seconds: Double) throws(AudioFileError) {
        let s = seconds.isFinite ? min(max(seconds, 0), info.durationSeconds) : 0
        let p = min(max(Int64((s * info.sampleRate).rounded()), 0), info.frames)
        finished = false
        drained = false
        inputEnded = false
        inStart = 0
        inCount = 0
        guard let converter else {
            try reader.seek(toFrame: p)
            genPos = p
            skipUntil = p
            fedEnd = p
            return
        }
        converter.reset()
        let q = preRollStart(for: p)
        try reader.seek(toFrame: q)
        fedEnd = q
        genPos = outputIndex(q)
        skipUntil = outputIndex(p)
    }

    /// Where to restart the converter so that `p` is reached with full filter history: about
    /// 160 input frames (the SINC_BEST half-length is ~143 taps, longer when downsampling) before
    /// `p`, choosing a frame whose output index is (nearly) whole so the output phase matches
    /// playback from 0. Frame 0 always matches exactly.
    private func preRollStart(for p: Int64) -> Int64 {
        let ratio = targetRate / info.sampleRate
        let preRoll = Int64((160.0 / min(ratio, 1.0)).rounded(.up)) + 32
        let latest = p - preRoll
        if latest <= 0 { return 0 }
        let earliest = max(0, latest - 4096)
        if earliest == 0 { return 0 }
        var best = latest
        var bestError = Double.infinity
        var c = latest
        while c >= earliest {
            let x = Double(c) * targetRate / info.sampleRate
            let e = abs(x - x.rounded())
            if e < bestError {
                best = c
                bestError = e
                if e < 1e-9 { break }
            }
            c -= 1
        }
        return best
    }
}
