import RackDSP

/// A kernel setting a parameter feeds: each row of the parameter table names one
/// (`ParameterSpec.binding`), and the engine builds every control segment's settings in one
/// loop over the rows (`EngineCore.kernelSettings`).
public enum KernelSetting: Sendable, Equatable {
    /// The dry path's input high-pass (`DryKernels`): cutoff in Hz (off at its row's minimum).
    case highPassCutoff
    /// The dry path's low-pass (`DryKernels`): cutoff in Hz, resonance in dB.
    case lowPassCutoff, lowPassResonance
    /// The mix stage (`WetDryGain`): the wet share (0…1), the output gain in dB, the bypass
    /// share (0…1).
    case wetShare, outputGain, bypassShare
    /// The reverb's shape (`ReverbShape`), field by field, in its units (seconds, Hz, 0…1, on).
    case reverbDecay, reverbPredelay, reverbDamping, reverbLowcut, reverbHighcut, reverbWidth, reverbFreeze
    /// The reverb's room: a choice the reverb crossfades itself, not a segment's setting.
    case reverbRoom

    /// True for a field of the reverb's shape: the controls that follow the room.
    public var isReverbShape: Bool {
        switch self {
        case .reverbDecay, .reverbPredelay, .reverbDamping, .reverbLowcut, .reverbHighcut, .reverbWidth, .reverbFreeze:
            return true
        case .highPassCutoff, .lowPassCutoff, .lowPassResonance, .wetShare, .outputGain, .bypassShare, .reverbRoom:
            return false
        }
    }
}

/// How a parameter's value (in its unit) becomes its kernel setting's (in the kernel's unit).
public enum KernelConversion: Sendable, Equatable {
    /// The same unit.
    case identity
    /// Percent to a fraction (÷ 100).
    case percentToFraction
    /// Milliseconds to seconds (÷ 1000).
    case millisecondsToSeconds
    /// A toggle: on (1) at 0.5 or more, else off (0), as `TaperedRange.clamp` rounds it.
    case toggle

    /// Milliseconds in a second.
    static var millisecondsPerSecond: Double { @inline(__always) @_noLocks get { 1000 } }
    /// Percent in a whole.
    static var percentPerWhole: Double { @inline(__always) @_noLocks get { 100 } }

    /// `value` in the parameter's unit as the kernel takes it.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    public func kernelValue(_ value: Double) -> Double {
        switch self {
        case .identity: return value
        case .percentToFraction: return value / Self.percentPerWhole
        case .millisecondsToSeconds: return value / Self.millisecondsPerSecond
        case .toggle: return value >= 0.5 ? 1 : 0
        }
    }

    /// A kernel's value in the parameter's unit (the inverse of `kernelValue`).
    public func parameterValue(_ kernel: Double) -> Double {
        switch self {
        case .identity, .toggle: return kernel
        case .percentToFraction: return kernel * Self.percentPerWhole
        case .millisecondsToSeconds: return kernel * Self.millisecondsPerSecond
        }
    }

    /// A kernel's range in the parameter's unit.
    public func parameterRange(_ kernel: ClosedRange<Double>) -> ClosedRange<Double> {
        parameterValue(kernel.lowerBound)...parameterValue(kernel.upperBound)
    }
}

/// What a row of the parameter table feeds: a kernel setting, through a conversion.
public struct KernelBinding: Sendable, Equatable {
    public let setting: KernelSetting
    public let conversion: KernelConversion

    public init(_ setting: KernelSetting, _ conversion: KernelConversion = .identity) {
        (self.setting, self.conversion) = (setting, conversion)
    }

    /// Sets the bound setting of `settings` from a parameter's `value`.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func apply(_ value: Double, to settings: inout KernelSettings) {
        let k = conversion.kernelValue(value)
        switch setting {
        case .highPassCutoff: settings.highPassHz = k
        case .lowPassCutoff: settings.lowPass.cutoffHz = k
        case .lowPassResonance: settings.lowPass.resonanceDecibels = k
        case .wetShare: settings.wetShare = k
        case .outputGain: settings.outputGainDecibels = k
        case .bypassShare: settings.bypassShare = k
        case .reverbDecay: settings.shape.decaySeconds = k
        case .reverbPredelay: settings.shape.predelaySeconds = k
        case .reverbDamping: settings.shape.dampingHz = k
        case .reverbLowcut: settings.shape.lowcutHz = k
        case .reverbHighcut: settings.shape.highcutHz = k
        case .reverbWidth: settings.shape.width = k
        case .reverbFreeze: settings.shape.freeze = k != 0
        case .reverbRoom: break
        }
    }

    /// The parameter's value that a reverb shape's field gives (a room's own values), nil for a
    /// binding to anything else.
    public func parameterValue(in shape: ReverbShape) -> Double? {
        let k: Double
        switch setting {
        case .reverbDecay: k = shape.decaySeconds
        case .reverbPredelay: k = shape.predelaySeconds
        case .reverbDamping: k = shape.dampingHz
        case .reverbLowcut: k = shape.lowcutHz
        case .reverbHighcut: k = shape.highcutHz
        case .reverbWidth: k = shape.width
        case .reverbFreeze: k = shape.freeze ? 1 : 0
        case .highPassCutoff, .lowPassCutoff, .lowPassResonance, .wetShare, .outputGain, .bypassShare, .reverbRoom:
            return nil
        }
        return conversion.parameterValue(k)
    }
}

/// Every kernel setting at one instant (a control segment's start or end), in the kernels'
/// units: plain values, built by the binding loop on the render thread.
public struct KernelSettings: Sendable {
    /// The input high-pass's cutoff in Hz.
    public var highPassHz = 0.0
    public var lowPass = StateVariableFilter.Setting(cutoffHz: 0, resonanceDecibels: 0)
    /// The wet share, 0…1.
    public var wetShare = 0.0
    /// The output gain in dB.
    public var outputGainDecibels = 0.0
    /// The share of the input passed around the rack, 0…1.
    public var bypassShare = 0.0
    public var shape = ReverbShape(decaySeconds: 0, predelaySeconds: 0, dampingHz: 0, lowcutHz: 0, highcutHz: 0,
                                   width: 0, freeze: false)

    /// - Realtime: safe
    @_noLocks @inline(__always)
    public init() {}

    /// The settings `state`'s values give: the same loop over the rows as the engine's.
    public init(_ state: RackState) {
        for spec in Parameters.all { spec.binding.apply(state[spec.id], to: &self) }
    }
}

/// The kernels on the dry path before the reverb, in signal order, each run from a segment's
/// start settings to its end settings: the input high-pass, then the low-pass.
struct DryKernels {
    /// The input high-pass: 2-pole Butterworth (Q = 1/√2: −10·log10(2) ≈ −3.01 dB at the cutoff).
    var highPass: StateVariableFilter
    var lowPass: StateVariableFilter
    /// The high-pass's cutoff at which it is off, in Hz: the minimum of the row bound to it.
    /// A segment that starts and ends there leaves the signal untouched (exactly: the stage
    /// is skipped and its history cleared).
    let highPassOffHz: Double

    /// Butterworth's resonance in dB: Q = 1/√2 is −10·log10(2) dB (`RackMath.gain`'s units).
    static var butterworthDecibels: Double { @inline(__always) @_noLocks get { -10 / RackMath.log2Of10 } }

    init() {
        let highPassRow = Parameters.all.first { $0.binding.setting == .highPassCutoff }
        let lowPassRow = Parameters.all.first { $0.binding.setting == .lowPassCutoff }
        highPassOffHz = highPassRow?.minimum ?? .infinity
        highPass = StateVariableFilter(mode: .highPass, maximumCutoffHz: highPassRow?.maximum ?? .infinity)
        lowPass = StateVariableFilter(mode: .lowPass, maximumCutoffHz: lowPassRow?.maximum ?? .infinity)
    }

    /// Sets every kernel up for `sampleRate`; allocates nothing.
    mutating func prepare(sampleRate: Double, maxFrames: Int) {
        highPass.prepare(sampleRate: sampleRate, maxFrames: maxFrames)
        lowPass.prepare(sampleRate: sampleRate, maxFrames: maxFrames)
    }

    /// Clears every kernel's history.
    /// - Realtime: safe
    @_noLocks
    mutating func reset() {
        highPass.reset()
        lowPass.reset()
    }

    /// Runs the dry kernels in place over `buffers`, `offset` samples into a control segment of
    /// `length` samples whose settings move from `from` to `to`.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    mutating func process(_ buffers: StereoBuffers, from: KernelSettings, to: KernelSettings, offset: Int, length: Int) {
        if from.highPassHz <= highPassOffHz && to.highPassHz <= highPassOffHz {
            highPass.reset()
        } else {
            let q = Self.butterworthDecibels
            highPass.process(StateVariableFilter.Block(
                buffers: buffers, from: StateVariableFilter.Setting(cutoffHz: from.highPassHz, resonanceDecibels: q),
                to: StateVariableFilter.Setting(cutoffHz: to.highPassHz, resonanceDecibels: q), offset: offset, length: length))
        }
        lowPass.process(StateVariableFilter.Block(buffers: buffers, from: from.lowPass, to: to.lowPass,
                                                  offset: offset, length: length))
    }
}
