// Sample-rate conversion with libsamplerate: a small streaming converter wrapper.

import CSndfile
import Foundation

/// A libsamplerate error (bad ratio, converter failure).
public struct ResamplerError: Error, CustomStringConvertible, Equatable {
    /// What went wrong, one line.
    public let description: String
}

/// A streaming libsamplerate converter for interleaved Float frames (SRC_SINC_BEST_QUALITY by
/// default). The output is time-aligned with the input: output frame `k` is the input signal at
/// input frame `k / ratio` (no added delay). Not thread-safe.
public final class SampleRateConverter {
    /// libsamplerate converter types.
    public enum Quality: Int32, Sendable {
        /// SRC_SINC_BEST_QUALITY: 97 dB SNR, 97 % bandwidth.
        case sincBest = 0
        /// SRC_SINC_MEDIUM_QUALITY.
        case sincMedium = 1
        /// SRC_SINC_FASTEST.
        case sincFastest = 2
        /// SRC_ZERO_ORDER_HOLD (no filtering).
        case zeroOrderHold = 3
        /// SRC_LINEAR (no filtering).
        case linear = 4
    }

    /// Output rate / input rate.
    public let ratio: Double
    /// Interleaved channels per frame.
    public let channels: Int
    private let state: OpaquePointer

    /// - Parameters:
    ///   - inputRate: rate of the frames given to `process`, in Hz.
    ///   - outputRate: rate of the frames produced, in Hz. `outputRate / inputRate` must lie
    ///     within 1/256 … 256.
    ///   - channels: interleaved channels, ≥ 1.
    public init(inputRate: Double, outputRate: Double, channels: Int, quality: Quality = .sincBest) throws(ResamplerError) {
        let ratio = outputRate / inputRate
        guard inputRate > 0, outputRate > 0, ratio.isFinite, src_is_valid_ratio(ratio) != 0 else {
            throw ResamplerError(description: "cannot convert \(inputRate) Hz to \(outputRate) Hz (ratio must be within 1/256…256)")
        }
        guard channels >= 1, channels <= 64 else {
            throw ResamplerError(description: "unsupported channel count \(channels)")
        }
        var err: Int32 = 0
        guard let s = src_new(quality.rawValue, Int32(channels), &err) else {
            throw ResamplerError(description: "libsamplerate: " + Sys.tidy(String(cString: src_strerror(err))))
        }
        self.state = s
        self.ratio = ratio
        self.channels = channels
    }

    deinit { src_delete(state) }

    /// Converts as much as possible: reads up to `inputFrames` frames from `input`, writes up to
    /// `outputFrames` frames to `output`. Set `endOfInput` once the given input is the last; keep
    /// calling (with the remaining input, possibly none) until `outputGenerated` is 0 to drain
    /// the tail. Returns the frames consumed and produced.
    public func process(input: UnsafePointer<Float>, inputFrames: Int,
                        output: UnsafeMutablePointer<Float>, outputFrames: Int,
                        endOfInput: Bool) throws(ResamplerError) -> (inputUsed: Int, outputGenerated: Int) {
        var data = SRC_DATA()
        data.data_in = input
        data.data_out = output
        data.input_frames = inputFrames
        data.output_frames = outputFrames
        data.end_of_input = endOfInput ? 1 : 0
        data.src_ratio = ratio
        let rc = src_process(state, &data)
        if rc != 0 {
            throw ResamplerError(description: "libsamplerate: " + Sys.tidy(String(cString: src_strerror(rc))))
        }
        return (Int(data.input_frames_used), Int(data.output_frames_gen))
    }

    /// Forgets all history (and any end-of-input state), as if newly created.
    public func reset() { _ = src_reset(state) }
}
