import RackEngine
import Foundation

/// The sections of `man rack` that come from rack's tables: PARAMETERS from the parameter
/// table (`Parameters.all`), OSC from the address space (`OSCAddressSpace`, which OSCQuery's
/// namespace also comes from) and AUTOMATION FILES from the addresses an automation file may
/// say. `scripts/gen-docs` writes them into the man page (through `rack manual-sections`); a
/// test fails when the committed man page does not hold them as they are now.
public enum ManualSections {
    /// The three sections, in roff.
    public static var roff: String {
        (parameters + osc + automation).joined(separator: "\n") + "\n"
    }

    static var parameters: [String] {
        var out = [".SH PARAMETERS",
                   text("Every parameter is set with --set NAME=VALUE (rack render, rack plot), over OSC at /rack/NAME (a value and an optional ramp in seconds) or /rack/NAME/norm (a 0…1 control position along its taper), in presets and in automation files.")]
        for spec in Parameters.all {
            let range = spec.taper == .choice
                ? "one of " + spec.choices.joined(separator: ", ") + "; default " + spec.format(spec.defaultValue)
                    + "; a change crossfades over " + formatNumber(spec.defaultRampSeconds) + " s (at most " + formatNumber(spec.maximumRampSeconds) + " s)"
                : spec.format(spec.minimum) + "…" + spec.format(spec.maximum) + " " + spec.unit + " (" + spec.taper.rawValue
                    + " taper), default " + spec.format(spec.defaultValue) + "; default ramp " + formatNumber(spec.defaultRampSeconds) + " s"
            out += [".TP \(tagWidth)n", ".B " + escape(spec.name), unbrokenEnd(text(spec.summary + "; " + range + "."))]
        }
        return out
    }

    static var osc: [String] {
        var out = [".SH OSC",
                   text("rack run obeys these addresses over UDP (127.0.0.1:8000 unless --osc-host and --osc-port say otherwise) and answers queries to the sender. Arguments: s a string, n a number (i, f, d or h), s|n either, [ ] optional, * anything; (automatable) marks what an automation file may say. OSCQuery (HTTP, GET /) publishes the same namespace.")]
        out += [".TP", ".B " + escape(OSCAddressSpace.parameterPrefix + "PARAMETER n [n]"),
                text("ramp a parameter of the table (see PARAMETERS) to a value over an optional ramp in seconds; room takes a name (automatable)"),
                ".TP", ".B " + escape(OSCAddressSpace.parameterPrefix + "PARAMETER/norm n [n]"),
                text("the same with a 0…1 control position along the parameter's taper (automatable)")]
        for c in OSCAddressSpace.commands where !c.sessionManagerOnly {
            let arguments = c.signature.notation
            let marks = c.automation != nil ? " (automatable)" : c.isQuery ? " (query)" : ""
            out += [".TP", ".B " + escape(arguments.isEmpty ? c.address : c.address + " " + arguments), text(c.summary + marks)]
        }
        return out
    }

    static var automation: [String] {
        let commands = OSCAddressSpace.commands.filter { $0.automation != nil }.map(\.address)
        return [".SH AUTOMATION FILES",
                text("One event a line: TIME ADDRESS ARGS..., TIME in seconds from the start, never going back; # starts a comment; \"double quotes\" group a preset name with spaces. An address is a parameter (/rack/NAME or /rack/NAME/norm, a value and an optional ramp in seconds) or one of " + commands.joined(separator: ", ") + ". A change at time 0 without a ramp sets the state a render starts from. rack check validates a file, rack plot draws it, rack render plays it offline and rack send plays it to a running rack."),
                ".PP",
                text("rack run --record FILE writes such a file: the state it started from at time 0 (the preset, every parameter, the loop flag and the position; the file played in a comment), then every change at the sample it took effect, and a stop where the rack stopped. rack render FILE OUT --automation RECORDING replays it, looping when the live player looped.")]
    }

    /// The tag column of the parameter list, in ens: the longest name and two spaces, so
    /// every name sits beside its text.
    static var tagWidth: Int { (Parameters.all.map(\.name.count).max() ?? 0) + 2 }

    /// Roff text whose last two words are joined by an unbreakable space (`\~`): a filled
    /// paragraph's last line never holds one word alone (a value cut from "default").
    static func unbrokenEnd(_ roff: String) -> String {
        guard let space = roff.lastIndex(of: " "), space != roff.startIndex else { return roff }
        return roff[..<space] + "\\~" + roff[roff.index(after: space)...]
    }

    /// A paragraph of text, escaped.
    static func text(_ s: String) -> String { escape(s) }

    /// `s` as roff text: backslashes and hyphens escaped, a leading dot or quote guarded.
    static func escape(_ s: String) -> String {
        var out = s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "-", with: "\\-")
            .replacingOccurrences(of: "'", with: "\\(aq")
        if out.hasPrefix(".") { out = "\\&" + out }
        return out
    }
}
