import Foundation
import RackEngine
import RackFiles

/// What a plot is written as, from the output's extension.
public enum PlotFormat: String, Sendable {
    case svg, png

    /// The format of `path`; any other extension is refused (73: the output cannot be created).
    public static func of(_ path: String) throws(RackError) -> PlotFormat {
        let ext = (path as NSString).pathExtension.lowercased()
        guard let f = PlotFormat(rawValue: ext) else {
            let shown = ext.isEmpty ? "no extension" : "unknown extension '.\(ext)'"
            throw RackError(.cannotCreate, "cannot write '\(path)': \(shown) (use .svg or .png)")
        }
        return f
    }
}

/// Writes plots: SVG as is, PNG through `rsvg-convert` (librsvg) run as a subprocess. The output
/// appears whole or not at all (temp file in the same directory, fsync, rename).
public enum PlotWriter {
    /// The converter's name on PATH.
    public static let converterName = "rsvg-convert"

    /// The path of `rsvg-convert` on `PATH`, or nil.
    public static func findConverter(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = String(dir) + "/" + converterName
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Checks, before any drawing, that `path` can be written in its format: a known extension
    /// (else 73) and, for PNG, a converter (else 69). Returns the format and the converter.
    public static func prepare(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(RackError) -> (PlotFormat, converter: String?) {
        let format = try PlotFormat.of(path)
        try checkDestination(path)
        guard format == .png else { return (format, nil) }
        guard let converter = findConverter(environment: environment) else {
            throw RackError(.unavailable, "cannot write '\(path)': PNG needs \(converterName), not found on PATH (install librsvg2-bin, or write .svg)")
        }
        return (format, converter)
    }

    /// `OutputDestination`'s check, as `rack render` makes it (a symbolic link, a directory, a
    /// device or a missing directory is refused: 73).
    static func checkDestination(_ path: String) throws(RackError) {
        do { _ = try OutputDestination(path: path) } catch {
            throw RackError(.cannotCreate, "cannot write '\(path)': \(error.reason)")
        }
    }

    /// Writes `svg` to `path`, converting to PNG with `converter` when the format says so.
    public static func write(svg: String, to path: String, format: PlotFormat, converter: String?) throws(RackError) {
        try checkDestination(path)
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        switch format {
        case .svg:
            try atomicWrite(Array(svg.utf8), to: path, directory: directory)
        case .png:
            guard let converter else {
                throw RackError(.unavailable, "cannot write '\(path)': PNG needs \(converterName) (install librsvg2-bin, or write .svg)")
            }
            let png = try convert(svg: svg, converter: converter, output: path)
            try atomicWrite(png, to: path, directory: directory)
        }
    }

    /// Runs `rsvg-convert` on `svg` (through a temp file) and returns the PNG's bytes.
    static func convert(svg: String, converter: String, output: String) throws(RackError) -> [UInt8] {
        var template = Array((NSTemporaryDirectory() + "/rack-plot-XXXXXX.svg").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard fd >= 0 else { throw RackError(.cannotCreate, "cannot write '\(output)': no temporary file: \(String(cString: strerror(errno)))") }
        let temp = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(temp) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: Data(svg.utf8))
            try handle.close()
        } catch {
            throw RackError(.ioError, "cannot write a temporary file for '\(output)': \(error.localizedDescription)")
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: converter)
        process.arguments = ["--format", "png", "--background-color", "white", temp]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw RackError(.unavailable, "cannot write '\(output)': cannot run \(converter): \(error.localizedDescription)")
        }
        // Both pipes are drained so that neither can fill up and stall the converter.
        let errBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errBox.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let png = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0, !png.isEmpty else {
            let reason = String(decoding: errBox.data, as: UTF8.self)
                .split(separator: "\n").first.map(String.init) ?? "exit status \(process.terminationStatus)"
            throw RackError(.cannotCreate, "cannot write '\(output)': \(converterName) failed: \(reason)")
        }
        return Array(png)
    }
}

/// Carries the converter's stderr out of the reading thread.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}
