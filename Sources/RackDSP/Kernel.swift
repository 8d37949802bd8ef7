/// The one shape every DSP kernel of the rack has (after JUCE's `dsp::ProcessorBase`:
/// prepare / reset / process with one context type):
///
/// - `prepare(sampleRate:maxFrames:)` is the only place a kernel allocates or derives its
///   rate-dependent constants (seconds and Hz scaled by the sample rate). Not realtime.
/// - `reset()` forgets the signal history (delay lines, integrators, envelopes, meters) and
///   keeps what `prepare` set up. Realtime safe, never allocates.
/// - `process(_:)` renders one call's worth, described by the kernel's `Block`: the buffers it
///   reads and writes (`StereoBuffers`) and whatever settings that call needs. Realtime safe:
///   no allocation, locks, I/O or class references (`@_noLocks`).
///
/// A kernel keeps its own memo (the filter's last coefficients, the gain's last conversion):
/// the engine hands it values in parameter units and never caches on its behalf. The values
/// a kernel receives are already in range: the control side clamps them once
/// (`ParameterSpec.clamp`); a kernel only guards its own numerical limits (e.g. the filter
/// keeps its cutoff below Nyquist so `tan` stays finite).
///
/// A kernel that owns memory holds it in noncopyable owners (`UniqueBuffer`), so the kernel is
/// itself noncopyable and its memory goes when the kernel does: with its owner (the engine
/// core), on the thread that drops that owner (`Reverb` holds its memory so too: `ReverbMemory`).
///
/// Kernels: `StateVariableFilter`, `WetDryGain`, `Player`. `InputSanitiser` is a stateless stage
/// (nothing to prepare or reset: one function that also counts what it replaced).
public protocol Kernel: ~Copyable {
    /// What one `process` call works on: buffers and the call's settings.
    associatedtype Block

    /// Allocates and sets up for `sampleRate` (Hz) and calls of at most `maxFrames` frames;
    /// ends in the state `reset()` gives. Not realtime.
    mutating func prepare(sampleRate: Double, maxFrames: Int)

    /// Forgets the signal history. Realtime safe.
    mutating func reset()

    /// Renders one block. Realtime safe.
    mutating func process(_ block: Block)
}

/// A stereo pair of sample buffers, `frames` samples each: the context a kernel's `Block`
/// carries. Plain pointers, owned by the caller for the duration of the call.
public struct StereoBuffers {
    public var left: UnsafeMutablePointer<Float>
    public var right: UnsafeMutablePointer<Float>
    /// Samples in each channel.
    public var frames: Int

    /// - Realtime: safe
    @_noLocks @inline(__always)
    public init(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        self.left = left
        self.right = right
        self.frames = frames
    }

    /// The same buffers from `offset` on, `frames` samples long.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    public func slice(from offset: Int, frames: Int) -> StereoBuffers {
        StereoBuffers(left: left + offset, right: right + offset, frames: frames)
    }
}
