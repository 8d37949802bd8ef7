import Foundation
import RackIO

extension ExposurePolicy {
    /// Files listed at most (`/rack/player/media`), so the reply stays one datagram.
    public static let maximumListedMediaFiles = 200
    /// Directory entries one walk of the media directories looks at, at most: a walk of 30,000
    /// entries held the control thread for 190 ms, so the bound keeps one walk near 60 ms.
    /// Entries beyond it (in walk order) are not listed.
    public static let maximumWalkedMediaEntries = 10_000

    /// One walk of the `--media-dir` directories: the audio files (by extension: the
    /// containers rack names, `AudioContainer`) at any depth, hidden files and directories left
    /// out: real paths, sorted, at most `maximumListedMediaFiles`; and every directory it went
    /// through (the listing holds while none of them changes). Each file is a path `mediaFile`
    /// accepts, so any sender may load what it is shown; nothing outside the directories is listed.
    func walkMedia() -> (files: [String], directories: [String]) {
        var found: [String] = []
        var directories: [String] = []
        var entries = 0
        walking: for directory in mediaDirectories {
            directories.append(directory)
            let url = URL(fileURLWithPath: directory, isDirectory: true)
            guard let walk = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey],
                                                            options: [.skipsHiddenFiles]) else { continue }
            for case let file as URL in walk {
                entries += 1
                if entries > Self.maximumWalkedMediaEntries { break walking }
                if file.hasDirectoryPath { directories.append(file.path) }
                guard AudioContainer(path: file.path) != nil,
                      (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                      let real = mediaFile(file.path) else { continue }
                found.append(real)
                if found.count >= Self.maximumListedMediaFiles * 4 { break walking }
            }
        }
        return (Array(Set(found).sorted().prefix(Self.maximumListedMediaFiles)), directories)
    }
}

/// The listing of `/rack/player/media`, kept between requests: the directories are walked again
/// only when one the last walk went through has changed (its modification time, inode or
/// device), so a request costs a `stat` per directory instead of a walk per file. It holds at
/// most `maximumListedMediaFiles` paths and one stamp per directory walked (bounded by
/// `maximumWalkedMediaEntries`).
final class MediaCatalog {
    /// A directory as `stat` saw it.
    private struct Stamp: Equatable {
        let path: String
        let device: UInt64
        let inode: UInt64
        let seconds: Int
        let nanoseconds: Int
    }

    /// How recent, in seconds, a directory's modification time may be for the listing to be
    /// kept: file systems stamp times from a coarse clock, so a change in the same tick as the
    /// walk could leave the time as it was; such a listing is walked again at the next request.
    static let settledSeconds = 1.0

    private var files: [String] = []
    private var stamps: [Stamp] = []
    private var settled = false
    /// Walks so far.
    private(set) var walks = 0

    /// The listing of `policy`'s directories: the one kept, or a new walk's when a directory
    /// changed (or changed too recently to tell).
    func files(of policy: ExposurePolicy) -> [String] {
        if settled, stamps.allSatisfy({ Self.stamp($0.path) == $0 }) { return files }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let walk = policy.walkMedia()
        walks += 1
        files = walk.files
        stamps = walk.directories.compactMap(Self.stamp)
        let newest = stamps.map { Double($0.seconds) + Double($0.nanoseconds) / 1e9 }.max() ?? 0
        settled = stamps.count == walk.directories.count
            && newest < Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 - Self.settledSeconds
        return files
    }

    /// `stat(2)` of `path` (symbolic links followed), nil when it fails.
    private static func stamp(_ path: String) -> Stamp? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Stamp(path: path, device: UInt64(st.st_dev), inode: UInt64(st.st_ino),
                     seconds: Int(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec))
    }
}
