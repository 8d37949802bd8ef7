import RackDSP

/// Which controller moves which parameter: the default map (General MIDI conventions), MIDI
/// learn bindings, and the channel filter. A value on the control thread; the render thread
/// (controllers in) and the control thread's MIDI feedback (controllers out) use it compiled
/// into a `MIDITable` (see `MIDILink`).
///
/// A CC sent alone spans the whole range (127 → the maximum). An LSB on CC n+32 refines the
/// last MSB of CC n (14-bit) for n in 0…31, the MIDI standard; CC 106 refines CC 74, the
/// default cutoff (CC 106 is undefined in MIDI). A binding of the LSB controller itself wins
/// over the pairing.
public struct MIDIMap: Sendable, Equatable {
    /// One binding: CC `controller` on `channel` (1…16; 0 = any) moves `parameter`.
    public struct Binding: Sendable, Equatable {
        public var channel: Int
        public var controller: Int
        public var parameter: ParameterID

        public init(channel: Int, controller: Int, parameter: ParameterID) {
            self.channel = channel
            self.controller = controller
            self.parameter = parameter
        }
    }

    /// The bindings, one per controller number, in controller order.
    public private(set) var bindings: [Binding]

    /// The default map: each parameter's `ParameterSpec.defaultMIDIController` on any channel
    /// (General MIDI conventions: CC 74 cutoff, CC 71 resonance, CC 91 mix, CC 7 gain).
    public static let defaults = MIDIMap(bindings: Parameters.all.compactMap { spec in
        spec.defaultMIDIController.map { Binding(channel: 0, controller: $0, parameter: spec.id) }
    })

    /// A map of `bindings` (a later binding of the same controller replaces an earlier one).
    public init(bindings: [Binding]) {
        self.bindings = []
        for b in bindings { bind(b) }
    }

    /// Why a binding cannot be made, or nil: controller 0…127, channel 0…16, and a parameter
    /// with a range (not `room`).
    public static func problem(_ b: Binding) -> String? {
        if !(0...127).contains(b.controller) { return "controller \(b.controller) is not 0…127" }
        if !(0...16).contains(b.channel) { return "channel \(b.channel) is not 0…16 (0 = any)" }
        if b.parameter.isRoom { return "room is a choice, not a range a controller can sweep" }
        return nil
    }

    /// Adds or replaces the binding of `b.controller` (invalid bindings are ignored: check
    /// `problem` first).
    public mutating func bind(_ b: Binding) {
        guard Self.problem(b) == nil else { return }
        bindings.removeAll { $0.controller == b.controller }
        bindings.append(b)
        bindings.sort { $0.controller < $1.controller }
    }

    /// Removes the binding of `controller`; false when there was none.
    @discardableResult
    public mutating func unbind(controller: Int) -> Bool {
        let before = bindings.count
        bindings.removeAll { $0.controller == controller }
        return bindings.count != before
    }

    /// The MSB controller whose LSB `controller` carries, or nil (n+32 for n in 0…31; 106 for 74).
    public static func msb(ofLSB controller: Int) -> Int? {
        if (32...63).contains(controller) { return controller - 32 }
        if controller == 106 { return 74 }
        return nil
    }

    /// The table of this map with the channel filter `channel` (1…16; 0 = omni).
    /// Allocates; not realtime.
    public func table(channelFilter channel: Int) -> MIDITable {
        let t = MIDITable(channelFilter: UInt8(clamping: channel))
        for b in bindings {
            t.slots[b.controller] = MIDITable.Slot(parameter: b.parameter, channel: UInt8(b.channel), msb: nil,
                                                   range: Parameters[b.parameter].range)
        }
        for lsb in 0..<128 where t.slots[lsb].parameter == nil {
            guard let m = Self.msb(ofLSB: lsb), t.slots[m].parameter != nil else { continue }
            var s = t.slots[m]
            s.msb = Int8(m)
            t.slots[lsb] = s
        }
        return t
    }
}

/// The compiled form of a `MIDIMap`: one slot per controller number, with everything the
/// conversion to a parameter value (render thread) and back to a controller value (feedback,
/// control thread) needs, in storage allocated by the control thread. The owner (`MIDILink`)
/// frees it once the render thread has let go of it.
public struct MIDITable: @unchecked Sendable {
    /// What a controller does.
    public struct Slot: Sendable, Equatable {
        /// The parameter the controller moves; nil: the controller is not bound.
        public var parameter: ParameterID? = nil
        /// 1…16, or 0: any channel.
        public var channel: UInt8 = 0
        /// For an LSB controller: the MSB controller it refines; nil for an MSB or plain binding.
        public var msb: Int8? = nil
        /// The parameter's range and taper (the table's own, `ParameterSpec.range`).
        public var range = TaperedRange(minimum: 0, maximum: 1, taper: .linear)
    }

    /// 128 slots, by controller number.
    public let slots: UnsafeMutablePointer<Slot>
    /// Only this channel (1…16) is obeyed; 0: every channel.
    public let channelFilter: UInt8

    init(channelFilter: UInt8) {
        slots = .allocate(capacity: 128)
        slots.initialize(repeating: Slot(), count: 128)
        self.channelFilter = channelFilter
    }

    /// Frees the slots (control thread, once the render thread no longer holds the table).
    public func deallocate() { slots.deallocate() }

    /// The parameter value at controller position `position` (0…1) of `slot`: the parameter's
    /// taper (`TaperedRange.value(normalized:)`, the maths `/norm` uses).
    /// - Realtime: safe
    @_noLocks
    public static func value(_ slot: Slot, position: Double) -> Double {
        slot.range.value(normalized: position)
    }

    /// The feedback of `parameter` at `value`: `body` gets, in controller order, every
    /// controller bound to it other than the LSB of a 14-bit pair (the MSB carries it), with its
    /// channel (1…16: the binding's, else the channel filter, else 1) and the 7-bit value that
    /// sends `value` (`controllerValue`). Nothing for a parameter no controller is bound to.
    public func forEachFeedback(of parameter: ParameterID, value: Double,
                                _ body: (_ channel: Int, _ controller: Int, _ value: UInt8) -> Void) {
        for controller in 0..<128 {
            let slot = slots[controller]
            guard slot.parameter == parameter, slot.msb == nil else { continue }
            let channel = slot.channel != 0 ? slot.channel : (channelFilter != 0 ? channelFilter : 1)
            body(Int(channel), controller, Self.controllerValue(slot, value: value))
        }
    }

    /// The 7-bit controller value (0…127) that sends `value` of `slot` (MIDI feedback).
    /// - Realtime: safe
    @_noLocks
    public static func controllerValue(_ slot: Slot, value: Double) -> UInt8 {
        UInt8(min(max(slot.range.normalized(value), 0), 1) * 127 + 0.5)   // nearest step
    }
}
