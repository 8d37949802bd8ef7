import Foundation

/// A one-line progress bar on stderr, for terminals only.
final class ProgressBar {
    let label: String
    init(label: String) { self.label = label }
    func update(_ fraction: Double) {
        let width = 30
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(Int(fraction * 100))%".utf8))
    }
    func finish() { FileHandle.standardError.write(Data("\n".utf8)) }
}
