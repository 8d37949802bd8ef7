import RackEngine
import Foundation
import RackPathText

/// Where a written file goes (`rack render`'s audio, `rack plot`'s picture): the one check of an
/// output path, made before anything is drawn or rendered. The file is written beside it and
/// renamed over it, so the path must be a file name whose directory exists, and an existing
/// file there must be a regular file: rename() would replace a symbolic link (not the file it
/// points to), fail on a directory, and must never replace a device node.
public struct OutputDestination: Sendable {
    /// Why a path cannot be written (the part after "cannot write 'PATH': ").
    public struct Refusal: Error, Sendable {
        public let reason: String
    }

    /// "" or "dir/": what precedes the name in the path.
    public let prefix: String
    public let name: String
    /// The directory ("." for a bare name).
    public let directory: String
    /// The permission bits of the file it replaces, if any.
    public let keepMode: mode_t?

    /// `path` split into what precedes its last component ("" or "dir/") and that component.
    public static func split(_ path: String) -> (prefix: String, name: String) {
        let name = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        return (String(decoding: path.utf8.dropLast(name.utf8.count), as: UTF8.self), name)
    }

    public init(path: String) throws(Refusal) {
        (prefix, name) = Self.split(path)
        guard !name.isEmpty, name != ".", name != ".." else { throw Refusal(reason: "not a file name") }
        directory = prefix.isEmpty ? "." : prefix
        var st = stat()
        guard PathText.withCPath(directory, { stat($0, &st) }) == 0 else {
            let code = errno
            throw Refusal(reason: code == ENOENT || code == ENOTDIR
                          ? "directory '\(directory)' does not exist" : "directory '\(directory)': \(String(cString: strerror(code)))")
        }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw Refusal(reason: "'\(directory)' is not a directory") }
        var lst = stat()
        guard PathText.withCPath(path, { lstat($0, &lst) }) == 0 else { keepMode = nil; return }
        switch lst.st_mode & S_IFMT {
        case S_IFDIR: throw Refusal(reason: "is a directory")
        case S_IFLNK: throw Refusal(reason: "is a symbolic link (give the real file's path)")
        case S_IFREG: keepMode = lst.st_mode & 0o7777
        default: throw Refusal(reason: "exists and is not a regular file")
        }
    }
}
