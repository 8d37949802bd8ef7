import Foundation

/// The `rack` executable as a user runs it: `$RACK_BIN`, else the debug build beside the tests.
public let rackBinary: String = {
    if let bin = ProcessInfo.processInfo.environment["RACK_BIN"] { return bin }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return root.appendingPathComponent(".build/debug/rack").path
}()
