/// How a name a user typed finds one of a list of names (rooms, presets): the exact name first,
/// then the one that differs only in letter case ("cathedral", "WARM", "café hall"). The one
/// rule every place that takes a room or preset name uses: OSC, `--preset`, `--set room=`,
/// automation files, `rack presets show`.
public enum NameMatch {
    /// The name of `candidates` that `typed` means, or nil: an exact match, else the first one
    /// equal to it ignoring case (Unicode lower-casing, so letters of any script fold).
    public static func find<Names: Sequence<String>>(_ typed: String, in candidates: Names) -> String? {
        var folded: String?
        let key = typed.lowercased()
        for candidate in candidates {
            if candidate == typed { return candidate }
            if folded == nil && candidate.lowercased() == key { folded = candidate }
        }
        return folded
    }

    /// Whether two names are the same name to a lookup (equal ignoring case).
    public static func same(_ a: String, _ b: String) -> Bool {
        a == b || a.lowercased() == b.lowercased()
    }
}
