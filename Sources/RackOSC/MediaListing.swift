import Foundation
import RackIO

extension ExposurePolicy {
    /// Files listed at most (`/rack/player/media`), so the reply stays one datagram.
    public static let maximumListedMediaFiles = 200

    /// The audio files (by extension: the containers rack names, `AudioContainer`) under the
    /// `--media-dir` directories, at any depth, hidden files and directories left out: real
    /// paths, sorted, at most `maximumListedMediaFiles`. Each is a path `mediaFile` accepts, so
    /// any sender may load what it is shown; nothing outside the directories is listed.
    public func mediaFiles() -> [String] {
        var found: [String] = []
        for directory in mediaDirectories {
            let url = URL(fileURLWithPath: directory, isDirectory: true)
            guard let walk = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey],
                                                            options: [.skipsHiddenFiles]) else { continue }
            for case let file as URL in walk where AudioContainer(path: file.path) != nil {
                guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                      let real = mediaFile(file.path) else { continue }
                found.append(real)
                if found.count >= Self.maximumListedMediaFiles * 4 { break }
            }
        }
        return Array(Set(found).sorted().prefix(Self.maximumListedMediaFiles))
    }
}
