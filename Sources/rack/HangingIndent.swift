/// `text` broken at spaces into lines of at most `width` characters, every line after the first
/// indented by `indent` spaces: help lines that never wrap to column 0 on an 80-column terminal
/// (the parser wraps anything longer than 79). A word longer than a line stays whole.
func hangingIndent(_ text: String, indent: Int, width: Int = 79) -> String {
    var rest = Array(text)
    var lines: [String] = []
    let margin = String(repeating: " ", count: indent)
    while rest.count > width {
        // The last space that ends a line within the width, past the indent; else the first after it.
        let breakAt = rest[(indent + 1)...width].lastIndex(of: " ")
            ?? rest[(indent + 1)...].firstIndex(of: " ")
        guard let breakAt else { break }
        lines.append(String(rest[..<breakAt]))
        rest = Array(margin) + rest[(breakAt + 1)...]
    }
    lines.append(String(rest))
    return lines.joined(separator: "\n")
}
