import RackEngine
import RackPlugin

/// The plugin's saved state: one line per parameter, `name=value\n`, in table order, the value
/// written the shortest way that reads back to the same Double (`formatNumber`), so a save and
/// a load give back exactly the values saved. Keyed by name (the table's stable identity) and
/// read through the state codec (`RackState.decode`): a state from a build with fewer
/// parameters gives the others their rows' missing-field values; a line naming no parameter is
/// ignored; values are clamped by the table's clamp, as a parameter event is. A rack preset
/// file loads as a state too (`CLAPPresetFile`).
enum CLAPState {
    /// The state of `values` (by `ParameterID.rawValue`).
    static func encode(_ values: UnsafePointer<Double>) -> String {
        var text = ""
        for spec in Parameters.all {
            text += spec.name + "=" + formatNumber(values[spec.id.rawValue]) + "\n"
        }
        return text
    }

    /// The values a state gives (by `ParameterID.rawValue`), nil when a line is
    /// not `name=number` or a value is not a finite number (then nothing is loaded). Text whose
    /// first character after white space is `{` is a rack preset file (`CLAPPresetFile`).
    static func decode(_ text: String) -> [Double]? {
        if text.utf8.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") {
            return CLAPPresetFile.decode(text)
        }
        var fields: [String: StateValue] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let value = Double(String(parts[1])), value.isFinite else { return nil }
            guard let spec = Parameters.named(String(parts[0])) else { continue }
            // A choice is saved as its index: the codec reads it by name.
            fields[spec.name] = spec.taper == .choice ? .string(spec.format(value)) : .number(value)
        }
        // The state codec, clamping as a parameter event is clamped (the table's clamp).
        let values = try? RackState.decode(fields, outOfRange: .clamp).values
        return values
    }
}
