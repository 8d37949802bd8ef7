import RackDSP

/// The parameters of the rack. Their order is the order of `/rack/dump`, `/rack/params`,
/// presets and the README table.
public enum ParameterID: Int, CaseIterable, Sendable, Hashable {
    case cutoff, resonance, mix, gain, room
    case decay, predelay, damping, lowcut, highcut, width, freeze, bypass, hpcut

    /// `rawValue`, callable from the render path.
    /// - Realtime: safe
    public var index: Int { @_noLocks get { rawValue } }

    /// True for `room`, the one parameter that is a choice.
    /// - Realtime: safe
    public var isRoom: Bool {
        @_noLocks get {
            if case .room = self { return true }
            return false
        }
    }
}

/// How a control's 0…1 position maps onto the range (`/rack/<param>/norm`, plots, sliders).
public enum Taper: String, Sendable {
    /// Equal ratios per step: frequencies.
    case logarithmic
    /// Equal differences per step.
    case linear
    /// A list of names: `room`.
    case choice
    /// Off or on: the values 0 and 1 (a value of 0.5 or more is on). OSC takes `f`, `i`, `T`
    /// or `F`; a MIDI controller at 64 or above is on. The engine does not glide between the
    /// two: the consumer crossfades (`bypass` over its ramp, `freeze` in the reverb's feed).
    case toggle
}

/// Where a parameter sits in the signal chain: the section a control surface (the web page,
/// OSCQuery's tree, help texts) shows it in.
public enum ParameterGroup: String, Sendable, CaseIterable {
    /// The input high-pass and the resonant low-pass.
    case filter
    /// The reverb: its room, its shaping and its wet/dry mix.
    case reverb
    /// The output stage.
    case output
}

/// A parameter's range and the taper a 0…1 control position moves along it: plain values, so
/// the render thread's MIDI stage uses the same maths as OSC's `/norm`, plots and sliders.
/// This is the one clamp of a value into its range: the control side applies it to every value
/// a user gives; the engine and the kernels trust what they receive.
public struct TaperedRange: Sendable, Equatable {
    public var minimum: Double
    public var maximum: Double
    public var taper: Taper

    /// - Realtime: safe
    @_noLocks
    public init(minimum: Double, maximum: Double, taper: Taper) {
        self.minimum = minimum
        self.maximum = maximum
        self.taper = taper
    }

    /// `value` forced into the range (indices of a choice are rounded).
    /// - Realtime: safe
    @_noLocks
    public func clamp(_ value: Double) -> Double {
        let v = min(max(value, minimum), maximum)
        switch taper {
        case .choice: return Self.nearestWhole(v)
        case .toggle: return v >= 0.5 ? maximum : minimum
        case .logarithmic, .linear: return v
        }
    }

    /// `x` rounded to the nearest whole number, halves away from zero (what `rounded()` does,
    /// written out for the render thread's checker; exact for the indices of a choice).
    /// - Realtime: safe
    @_noLocks
    static func nearestWhole(_ x: Double) -> Double {
        let whole = Double(Int64(x))   // toward zero
        let rest = x - whole
        if rest >= 0.5 { return whole + 1 }
        if rest <= -0.5 { return whole - 1 }
        return whole
    }

    /// The value at a 0…1 control position (out-of-range positions are clamped first).
    /// - Realtime: safe
    @_noLocks
    public func value(normalized x: Double) -> Double {
        let t = min(max(x, 0), 1)
        switch taper {
        case .logarithmic: return clamp(minimum * RackMath.exp2(RackMath.log2(maximum / minimum) * t))
        case .linear, .choice, .toggle: return clamp(minimum + (maximum - minimum) * t)
        }
    }

    /// The 0…1 control position of `value` (clamped into the range first).
    /// - Realtime: safe
    @_noLocks
    public func normalized(_ value: Double) -> Double {
        let v = clamp(value)
        switch taper {
        case .logarithmic: return RackMath.log2(v / minimum) / RackMath.log2(maximum / minimum)
        case .linear, .choice, .toggle: return (v - minimum) / (maximum - minimum)
        }
    }
}

/// One row of the parameter table: everything the kernels, OSC, presets, CLI help and docs know
/// about a parameter comes from here. Defaults live here and nowhere else.
public struct ParameterSpec: Sendable {
    public let id: ParameterID
    /// Identifier in OSC (`/rack/<name>`), presets, automation and `--set`.
    public let name: String
    /// Unit symbol: "Hz", "dB", "%", "s", "ms", "name" for `room`, "on/off" for a toggle.
    public let unit: String
    public let minimum: Double
    public let maximum: Double
    /// The value a fresh rack starts with.
    public let defaultValue: Double
    public let taper: Taper
    /// Ramp used when none is given (or 0 is given), in seconds. For `room` it is the crossfade.
    public let defaultRampSeconds: Double
    /// Longest ramp allowed, in seconds (`room`'s crossfade is capped at its documented 200 ms).
    public let maximumRampSeconds: Double
    /// How the value moves during a ramp.
    public let rampShape: RampShape
    /// How a ramp paces that move (`.raisedCosine` for the controls that reshape the reverb's
    /// loops and wet output while it sounds: their ramps start and end without a kink).
    public internal(set) var rampTiming: RampTiming = .even
    /// One line for help texts and docs.
    public let summary: String
    /// Names for a `choice` parameter: the value is an index into this list.
    public let choices: [String]
    /// The section of the signal chain it belongs to.
    public let group: ParameterGroup
    /// The MIDI controller (CC number, any channel) that moves it in the default MIDI map,
    /// or nil when no controller does until one is learned.
    public let defaultMIDIController: Int?
    /// Colour of its lane and curves in plots (`#rrggbb`).
    public let plotColour: String
    /// How finely its value is written for people and files (help, man page, Turtle, presets,
    /// `rack presets list`); OSC replies carry the full value.
    public let precision: DisplayPrecision
    /// The kernel setting it feeds and the conversion into the kernel's unit: the engine builds
    /// each control segment's settings from these in one loop over the rows.
    public let binding: KernelBinding

    /// The OSC address of the parameter.
    public var address: String { OSCAddressSpace.parameterPrefix + name }

    /// The range and its taper: the one place the taper maths lives.
    public var range: TaperedRange { TaperedRange(minimum: minimum, maximum: maximum, taper: taper) }

    /// `value` forced into the range (indices of a choice are rounded).
    public func clamp(_ value: Double) -> Double { range.clamp(value) }

    /// The value at a 0…1 controller position (logarithmic for a logarithmic taper).
    public func value(normalized x: Double) -> Double { range.value(normalized: x) }

    /// The 0…1 controller position of `value`.
    public func normalized(_ value: Double) -> Double { range.normalized(value) }

    /// How a value given by a user (command line, OSC, automation) is taken: a 0…1 control
    /// position mapped through the taper when `normalized`, else clamped to the range.
    /// `clamped` is the value it was clamped to, when it had to be (the caller reports it).
    public func accept(_ raw: Double, normalized: Bool) -> (value: Double, clamped: Double?) {
        if normalized {
            let x = min(max(raw, 0), 1)
            return (value(normalized: x), x != raw ? x : nil)
        }
        let v = clamp(raw)
        return (v, v != raw ? v : nil)
    }

    /// Why `seconds` is not a usable ramp time, or nil when it is (finite, 0 through
    /// `Parameters.longestRampSeconds`; 0 means the default ramp).
    public static func rampProblem(_ seconds: Double) -> String? {
        if !seconds.isFinite { return "ramp time must be finite" }
        if seconds < 0 { return "ramp time must not be negative" }
        let limit = Parameters.longestRampSeconds
        if seconds > limit { return "ramp time must be at most \(formatNumber(limit)) s" }
        return nil
    }

    /// The cap a ramp of `seconds` is shortened to, or nil when it is within it: the rule the
    /// engine applies in frames (`RampLength.resolvedFrames` with `rampLimits`) and automation
    /// warns about (a room crossfade longer than `maximumRampSeconds`).
    public func shortenedRamp(seconds: Double) -> Double? {
        seconds > maximumRampSeconds ? maximumRampSeconds : nil
    }

    /// The default and longest ramp in frames at `sampleRate`, as the engine applies them
    /// (`RampLength.resolvedFrames`) and as plots and automation's warnings predict them.
    public func rampLimits(sampleRate: Double) -> RampLimits {
        RampLimits(defaultFrames: Int64((defaultRampSeconds * sampleRate).rounded()),
                   maximumFrames: Int64((maximumRampSeconds * sampleRate).rounded()))
    }

    /// A value as users read it and files store it: a room by name, numbers rounded to the
    /// parameter's `precision` and without noise ("2500", "-3", "0.5", damping's default
    /// 3529.4117… as "3529"). The one formatting of a parameter's value.
    public func format(_ value: Double) -> String {
        if taper == .choice { return choices[Int(clamp(value))] }
        return formatNumber(rounded(value))
    }

    /// `value` rounded to the parameter's `precision` (a choice's index as it is).
    public func rounded(_ value: Double) -> Double {
        taper == .choice ? value : precision.rounded(value)
    }
}

/// Formats a number the shortest way that reads back to the same Double.
public func formatNumber(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}

/// The parameter table.
public enum Parameters {
    /// Longest ramp of a continuous parameter, in seconds: one hour (the documented limit).
    private static let hourRampSeconds = 3600.0

    /// Every parameter, in `ParameterID` order.
    public static let all: [ParameterSpec] = [
        ParameterSpec(id: .cutoff, name: "cutoff", unit: "Hz", minimum: 12, maximum: 20_000, defaultValue: 20_000,
                      taper: .logarithmic, defaultRampSeconds: 0.02, maximumRampSeconds: hourRampSeconds, rampShape: .exponential,
                      summary: "low-pass cutoff frequency (2-pole, 12 dB/octave)", choices: [],
                      group: .filter, defaultMIDIController: 74, plotColour: "#1f6fb4", precision: .hertz,
                      binding: KernelBinding(.lowPassCutoff)),
        ParameterSpec(id: .resonance, name: "resonance", unit: "dB", minimum: -20, maximum: 20, defaultValue: 0,
                      taper: .linear, defaultRampSeconds: 0.02, maximumRampSeconds: hourRampSeconds, rampShape: .linear,
                      summary: "gain at the cutoff frequency; Q = 10^(dB/20)", choices: [],
                      group: .filter, defaultMIDIController: 71, plotColour: "#8a3fb0", precision: .tenths,
                      binding: KernelBinding(.lowPassResonance)),
        ParameterSpec(id: .mix, name: "mix", unit: "%", minimum: 0, maximum: 100, defaultValue: 50,
                      taper: .linear, defaultRampSeconds: 0.02, maximumRampSeconds: hourRampSeconds, rampShape: .linear,
                      summary: "reverb wet/dry mix (0 = dry)", choices: [],
                      group: .reverb, defaultMIDIController: 91, plotColour: "#1b8a5a", precision: .tenths,
                      binding: KernelBinding(.wetShare, .percentToFraction)),
        ParameterSpec(id: .gain, name: "gain", unit: "dB", minimum: -60, maximum: 12, defaultValue: 0,
                      taper: .linear, defaultRampSeconds: 0.02, maximumRampSeconds: hourRampSeconds, rampShape: .linear,
                      summary: "output gain", choices: [],
                      group: .output, defaultMIDIController: 7, plotColour: "#c46200", precision: .tenths,
                      binding: KernelBinding(.outputGain)),
        ParameterSpec(id: .room, name: "room", unit: "name", minimum: 0, maximum: Double(Room.allCases.count - 1),
                      defaultValue: Double(Room.default.rawValue),
                      taper: .choice, defaultRampSeconds: 0.1, maximumRampSeconds: 0.2, rampShape: .linear,
                      summary: "reverb room; a change crossfades", choices: Room.allCases.map { $0.name },
                      group: .reverb, defaultMIDIController: nil, plotColour: "#444b55", precision: .whole,
                      binding: KernelBinding(.reverbRoom)),
    ] + shapingRows + [
        ParameterSpec(id: .bypass, name: "bypass", unit: "on/off", minimum: 0, maximum: 1, defaultValue: 0,
                      taper: .toggle, defaultRampSeconds: 0.02, maximumRampSeconds: hourRampSeconds, rampShape: .linear,
                      summary: "passes the input to the output unchanged; crossfades over its ramp, the reverb's tail rings out",
                      choices: [], group: .output, defaultMIDIController: nil, plotColour: "#6b6b6b", precision: .whole,
                      binding: KernelBinding(.bypassShare)),
        // The input high-pass runs first on the dry path (before the low-pass and the reverb);
        // at its minimum the stage is bypassed (`DryKernels`), so a rack at its defaults renders
        // exactly as one without it.
        ParameterSpec(id: .hpcut, name: "hpcut", unit: "Hz", minimum: 10, maximum: 1_000, defaultValue: 10,
                      taper: .logarithmic, defaultRampSeconds: 0.02, maximumRampSeconds: hourRampSeconds, rampShape: .exponential,
                      summary: "input high-pass before the filter and the reverb (2-pole Butterworth, 12 dB/octave); 10 = off",
                      choices: [], group: .filter, defaultMIDIController: nil, plotColour: "#7b5ea7", precision: .hertz,
                      binding: KernelBinding(.highPassCutoff)),
    ]

    /// The reverb's shaping controls (`ReverbShape`): each row's range is `ReverbShape`'s own
    /// range constant and its default the default room's value, both through the row's binding
    /// (`KernelConversion.parameterRange`, `KernelBinding.parameterValue`). No General MIDI
    /// controller means any of them, so none has a default CC.
    private static let shapingRows: [ParameterSpec] = {
        func row(_ id: ParameterID, _ name: String, _ unit: String, _ binding: KernelBinding, _ kernelRange: ClosedRange<Double>,
                 _ taper: Taper, _ shape: RampShape, _ summary: String, _ colour: String, _ precision: DisplayPrecision) -> ParameterSpec {
            let range = binding.conversion.parameterRange(kernelRange)
            return ParameterSpec(id: id, name: name, unit: unit, minimum: range.lowerBound, maximum: range.upperBound,
                                 defaultValue: binding.parameterValue(in: Room.default.shape) ?? range.lowerBound, taper: taper,
                                 defaultRampSeconds: 0.02, maximumRampSeconds: taper == .toggle ? 0 : hourRampSeconds, rampShape: shape,
                                 rampTiming: id == .predelay || taper == .toggle ? .even : .raisedCosine,
                                 summary: summary, choices: [], group: .reverb, defaultMIDIController: nil, plotColour: colour,
                                 precision: precision, binding: binding)
        }
        return [
            row(.decay, "decay", "s", KernelBinding(.reverbDecay), ReverbShape.decayRange, .logarithmic, .exponential,
                "broadband RT60 of the reverb (follows the room)", "#7a5c1e", .hundredths),
            row(.predelay, "predelay", "ms", KernelBinding(.reverbPredelay, .millisecondsToSeconds), ReverbShape.predelayRange,
                .linear, .linear, "time from the dry sound to the reverb's first energy (follows the room)", "#2b8c8c", .tenths),
            row(.damping, "damping", "Hz", KernelBinding(.reverbDamping), ReverbShape.dampingRange, .logarithmic, .exponential,
                "above this the decay time falls (at twice it, half); 20000 = undamped (follows the room)", "#b03a48", .hertz),
            row(.lowcut, "lowcut", "Hz", KernelBinding(.reverbLowcut), ReverbShape.lowcutRange, .logarithmic, .exponential,
                "high-pass on the wet signal only; 10 = off (follows the room)", "#5c6bc0", .hertz),
            row(.highcut, "highcut", "Hz", KernelBinding(.reverbHighcut), ReverbShape.highcutRange, .logarithmic, .exponential,
                "low-pass on the wet signal only; 20000 = off (follows the room)", "#9e7b00", .hertz),
            row(.width, "width", "%", KernelBinding(.reverbWidth, .percentToFraction), ReverbShape.widthRange, .linear, .linear,
                "stereo width of the wet signal: 0 mono, 100 natural, 150 wider (follows the room)", "#3d7a2a", .tenths),
            row(.freeze, "freeze", "on/off", KernelBinding(.reverbFreeze, .toggle), 0...1, .toggle, .linear,
                "holds the reverb's tail and stops feeding it; the input fades over 20 ms (follows the room)", "#4a6fa5", .whole),
        ]
    }()

    /// The continuous parameters (every one but a choice), in table order: the engine keeps
    /// one ramp for each, in this order.
    public static let continuous: [ParameterSpec] = all.filter { $0.taper != .choice }

    /// The row of `id`.
    public static subscript(_ id: ParameterID) -> ParameterSpec { all[id.rawValue] }

    /// True when the table's rows are in `ParameterID` order (a test holds it).
    static var isInIDOrder: Bool { all.enumerated().allSatisfy { $0.offset == $0.element.id.rawValue } }

    /// Looks a parameter up by name.
    public static func named(_ name: String) -> ParameterSpec? { all.first { $0.name == name } }

    /// " (did you mean NAME?)" for the parameter `typed` is near (`NameMatch.suggestion`), or "".
    public static func didYouMean(_ typed: String) -> String { NameMatch.didYouMean(typed, in: all.map { $0.name }) }

    /// The longest ramp time any parameter takes, in seconds: the limit on a ramp time a
    /// user gives (a parameter with a shorter cap, `room`'s crossfade, shortens it to that).
    public static let longestRampSeconds = all.map { $0.maximumRampSeconds }.max() ?? 0

    /// Every parameter's default, indexed by `ParameterID.rawValue`.
    public static var defaults: [Double] { all.map { $0.defaultValue } }
}
