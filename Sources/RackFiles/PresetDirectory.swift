import RackEngine
import Foundation
import RackDSP

/// What several racks sharing one user preset directory need: its lock, and a stamp that says
/// cheaply whether the directory changed since it was read.
enum PresetDirectory {
    /// The lock file's name: it starts with '.', which no preset name can, so it is never read
    /// as a preset.
    static let lockFileName = ".lock"

    /// Runs `body` holding an exclusive `flock` on the directory's lock file: one save's or
    /// delete's read-modify-write of the files and the index, never anything on the audio
    /// thread. The lock is released when the file is closed (also if the process dies).
    static func withLock<T>(_ directory: String, _ body: () throws(RackError) -> T) throws(RackError) -> T {
        let path = directory + "/" + lockFileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RackError(.cannotCreate, "cannot lock '\(path)': \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw RackError(.ioError, "cannot lock '\(path)': \(String(cString: strerror(errno)))") }
        }
        return try body()
    }

    /// Runs `body` under the directory's lock when it can be taken (the directory exists and
    /// is writable), else without it: a directory no rack can write is read as it is.
    static func withLockIfPossible(_ directory: String, _ body: () -> Void) {
        var ran = false
        _ = try? withLock(directory) { () throws(RackError) in body(); ran = true }
        if !ran { body() }
    }

    /// How long after a change a directory's modification time is not trusted to show the next
    /// one: 100 ms, ten times the coarsest tick of the kernel's file timestamps (10 ms at
    /// HZ=100), within which a second change can leave the time as it was.
    static let settleNanoseconds: Int64 = 100_000_000
}

/// A directory as `stat` sees it: which directory (device, inode) and when its entries last
/// changed. Every save, overwrite and delete renames or unlinks an entry, which moves it.
enum DirectoryStamp: Equatable {
    case missing
    case present(device: UInt64, inode: UInt64, modifiedNanoseconds: Int64)

    /// The stamp of `path` now.
    static func of(_ path: String) -> DirectoryStamp {
        var st = stat()
        guard stat(path, &st) == 0 else { return .missing }
        let modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        return .present(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), modifiedNanoseconds: modified)
    }

    /// Whether a later change is sure to show as a different stamp: the directory changed more
    /// than `PresetDirectory.settleNanoseconds` ago (or is missing, which its creation changes).
    var isSettled: Bool {
        guard case .present(_, _, let modified) = self else { return true }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) - modified >= PresetDirectory.settleNanoseconds
    }
}
