import Foundation

/// Polls `condition` every `pollSeconds` until it holds or `seconds` have passed; returns
/// whether it held. A test waits on what it is really waiting for, never on a fixed sleep.
@discardableResult
public func waitUntil(seconds: Double, pollSeconds: Double = 0.002, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        usleep(useconds_t(pollSeconds * 1_000_000))
    }
}
