import RackEngine
import RackPlugin

/// The parameter table as CLAP hosts see it: one CLAP parameter per row, its id derived from
/// the row's name (the table's stable identity: OSC addresses, presets and `--set` use it), so
/// reordering the table or adding a row never renumbers a parameter a host has saved.
enum CLAPParameters {
    /// Parameter `index`'s CLAP id: the 32-bit FNV-1a hash of its name (a test checks that the
    /// table's names give distinct ids, none of them CLAP's invalid id, 0xFFFFFFFF).
    static func id(ofName name: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261   // FNV-1a's offset basis
        for byte in name.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619       // FNV-1a's 32-bit prime
        }
        return hash
    }

    /// CLAP's flags for a row (CLAP_PARAM_IS_STEPPED, IS_BYPASS, IS_AUTOMATABLE from
    /// ext/params.h): every parameter is automatable; a choice (`room`) and a toggle (`freeze`,
    /// `bypass`) are stepped; `bypass` is the host's bypass.
    static func flags(_ spec: ParameterSpec) -> UInt32 {
        let stepped: UInt32 = 1 << 0, bypass: UInt32 = 1 << 4, automatable: UInt32 = 1 << 5
        var flags = automatable
        if spec.taper == .choice || spec.taper == .toggle { flags |= stepped }
        if spec.id == .bypass { flags |= bypass }
        return flags
    }

    /// CLAP's flags for a meter: CLAP_PARAM_IS_READONLY (ext/params.h), nothing else: the
    /// plugin sets it after each block, a host only reads it (`get_value`).
    static let meterFlags: UInt32 = 1 << 3

    /// A meter's value as hosts show it: dBFS to 0.1 ("-6.0 dBFS").
    static func meterText(_ value: Double) -> String {
        formatNumber((value * 10).rounded() / 10) + " dBFS"
    }

    /// The level a host's text names for a meter: a number, with or without "dBFS" or "dB"
    /// (case ignored); nil when it names none.
    static func meterValue(text: String) -> Double? {
        var trimmed = Substring(text.lowercased())
        while trimmed.first == " " { trimmed = trimmed.dropFirst() }
        for unit in ["dbfs", "db"] where trimmed.hasSuffix(unit) {
            trimmed = trimmed.dropLast(unit.count)
            break
        }
        while trimmed.last == " " { trimmed = trimmed.dropLast() }
        guard let number = Double(String(trimmed)), number.isFinite else { return nil }
        return max(number, Double(PluginMeter.floorDecibels))
    }

    /// A value as hosts show it: a room by name, a toggle as "on" or "off", a number as rack
    /// writes it (`ParameterSpec.format`) with its unit ("1500 Hz", "-4.5 dB", "2.5 s").
    static func text(_ spec: ParameterSpec, _ value: Double) -> String {
        switch spec.taper {
        case .choice: return spec.format(value)
        case .toggle: return spec.clamp(value) == spec.maximum ? "on" : "off"
        case .logarithmic, .linear: return spec.format(value) + " " + spec.unit
        }
    }

    /// The value a host's text names, nil when it names none: a room's name (ignoring case), or
    /// its index; "on"/"off" or a number for a toggle; a number, with or without the unit, for
    /// the rest. Clamped into the range.
    static func value(_ spec: ParameterSpec, text: String) -> Double? {
        var trimmed = Substring(text)
        while trimmed.first == " " { trimmed = trimmed.dropFirst() }
        while trimmed.last == " " { trimmed = trimmed.dropLast() }
        let lower = String(trimmed).lowercased()
        switch spec.taper {
        case .choice:
            if let index = spec.choices.firstIndex(where: { $0.lowercased() == lower }) { return Double(index) }
        case .toggle:
            if lower == "on" { return spec.maximum }
            if lower == "off" { return spec.minimum }
        case .logarithmic, .linear:
            if lower.hasSuffix(spec.unit.lowercased()) {
                trimmed = trimmed.dropLast(spec.unit.count)
                while trimmed.last == " " { trimmed = trimmed.dropLast() }
            }
        }
        guard let number = Double(String(trimmed)), number.isFinite else { return nil }
        return spec.clamp(number)
    }
}

/// Copies `text` into a C buffer of `capacity` bytes, NUL-terminated, cut short if it must be.
func copy(_ text: String, to buffer: UnsafeMutablePointer<CChar>, capacity: Int) {
    guard capacity > 0 else { return }
    var n = 0
    for byte in text.utf8 {
        if n == capacity - 1 { break }
        buffer[n] = CChar(bitPattern: byte)
        n += 1
    }
    buffer[n] = 0
}
