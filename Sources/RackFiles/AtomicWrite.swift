import RackEngine
import Foundation
import RackPathText
import RackDSP

/// Writes `bytes` to `path` so that a crash never leaves a partial file there: temp file in
/// `directory`, write, fsync, rename, fsync the directory.
/// Paths are `PathText` strings (a file name's bytes, UTF-8 or not).
public func atomicWrite(_ bytes: [UInt8], to path: String, directory: String) throws(RackError) {
    let name = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
    var template = PathText.bytes(directory + "/." + name + PresetStore.tempMarker + "XXXXXX").map { CChar(bitPattern: $0) } + [0]
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw RackError(.cannotCreate, "cannot create a file in '\(PathText.display(directory))': \(String(cString: strerror(errno)))") }
    let temp = PathText.fromBytes(template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
    var ok = true
    bytes.withUnsafeBytes { buf in
        var off = 0
        while off < buf.count {
            let n = write(fd, buf.baseAddress! + off, buf.count - off)
            if n <= 0 { if errno == EINTR { continue }; ok = false; break }
            off += n
        }
    }
    if ok { ok = fchmod(fd, 0o644) == 0 && fsync(fd) == 0 }
    let closed = close(fd) == 0
    guard ok && closed && PathText.withCPath(temp, { from in PathText.withCPath(path) { rename(from, $0) } }) == 0 else {
        let reason = String(cString: strerror(errno))
        PathText.withCPath(temp) { _ = unlink($0) }
        throw RackError(.ioError, "cannot write '\(PathText.display(path))': \(reason)")
    }
    let dfd = PathText.withCPath(directory) { open($0, O_RDONLY) }
    if dfd >= 0 { fsync(dfd); close(dfd) }
}
