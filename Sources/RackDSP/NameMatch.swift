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

    /// Most edits (letters inserted, removed, replaced or two swapped) between a name typed
    /// and one `suggestion` offers: 2, as git and most shells' "did you mean" take.
    public static let suggestionDistance = 2

    /// The name of `candidates` nearest to `typed` ignoring case, when it is at most
    /// `suggestionDistance` edits away (the first of equally near ones), or nil.
    public static func suggestion<Names: Sequence<String>>(for typed: String, in candidates: Names) -> String? {
        let key = Array(typed.lowercased())
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != typed {
            let limit = min(best?.distance ?? suggestionDistance + 1, suggestionDistance + 1)
            let d = distance(key, Array(candidate.lowercased()), limit: limit)
            if d < limit { best = (candidate, d) }
        }
        return best?.name
    }

    /// " (did you mean NAME?)" for the `suggestion`, or "" when there is none: what an
    /// unknown-name message appends.
    public static func didYouMean<Names: Sequence<String>>(_ typed: String, in candidates: Names) -> String {
        suggestion(for: typed, in: candidates).map { " (did you mean \($0)?)" } ?? ""
    }

    /// Edits from `a` to `b` (optimal string alignment: insert, delete, replace, swap two
    /// neighbours), or `limit` when it is `limit` or more (names whose lengths differ by that
    /// much are not compared letter by letter).
    static func distance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
        if abs(a.count - b.count) >= limit { return limit }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            current[0] = i
            var rowMinimum = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, before[j - 2] + 1) }
                current[j] = d
                rowMinimum = min(rowMinimum, d)
            }
            if rowMinimum >= limit { return limit }
            (before, previous, current) = (previous, current, before)
        }
        return min(a.isEmpty ? b.count : previous[b.count], limit)
    }
}
