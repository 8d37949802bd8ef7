import CSndfile
import Foundation

/// Threads that carry their name in the kernel (`/proc/PID/task/TID/comm`, `top -H`, `gdb`):
/// the new thread names itself (`pthread_setname_np`, through the C shim) before its body runs. Foundation's
/// `Thread.name` did not reach the kernel for every thread on Linux (a name set before `start()`
/// never; set by the thread itself, not for the stream the player opens at launch), so it is not used.
/// Linux keeps 15 bytes of a name.
enum NamedThread {
    /// Starts `body` on a new thread called `name` (15 bytes at most).
    static func start(_ name: String, qualityOfService: QualityOfService = .default,
                      _ body: @escaping @Sendable () -> Void) {
        precondition(name.utf8.count <= 15, "a thread name holds 15 bytes")
        let thread = Thread {
            _ = rack_name_this_thread(name)
            body()
        }
        thread.qualityOfService = qualityOfService
        thread.start()
    }
}
