import Foundation

/// Threads that carry their name in the kernel (`/proc/PID/task/TID/comm`, `top -H`, `gdb`):
/// Foundation on Linux applies `Thread.name` only when the running thread sets it, so the body
/// sets it first. Linux keeps 15 bytes of a name.
enum NamedThread {
    /// Starts `body` on a new thread called `name` (15 bytes at most).
    static func start(_ name: String, qualityOfService: QualityOfService = .default,
                      _ body: @escaping @Sendable () -> Void) {
        precondition(name.utf8.count <= 15, "a thread name holds 15 bytes")
        let thread = Thread {
            Thread.current.name = name
            body()
        }
        thread.qualityOfService = qualityOfService
        thread.start()
    }
}
