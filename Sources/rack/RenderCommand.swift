import ArgumentParser
import Foundation
import RackEngine
import RackFiles
import RackIO

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a file through the rack offline (no JACK server needed).",
        discussion: "The output format follows the extension: .wav, .flac, .ogg, .mp3. The output is as long as the input plus --tail; it is written to a temp file and renamed at the end, so nothing partial is ever left behind. '-' reads standard input (any format libsndfile reads) or writes standard output (as --type says), as sox does.")

    @Argument(help: "Input audio file (wav, flac, ogg, …), or - for standard input; played through the player.")
    var input: String
    @Argument(help: "Output audio file (.wav, .flac, .ogg or .mp3), or - for standard output (with --type).")
    var output: String
    @Option(parsing: .unconditional, help: "Start from this preset (name or number; user presets are negative).", completion: Completions.presets)
    var preset: String?
    @Option(name: .customLong("set"), help: ArgumentHelp("Set a parameter at the start (after --preset), e.g. cutoff=800 or room=plate. Repeatable.", valueName: "PARAM=VALUE"), completion: Completions.settings)
    var sets: [String] = []
    @Option(help: "Automation file to play during the render.")
    var automation: String?
    /// The tail `--tail` adds when not given, seconds.
    static let defaultTailSeconds = 0.0
    @Option(parsing: .unconditional, help: "Seconds of reverb tail added after the input ends (default: \(formatNumber(defaultTailSeconds))).", transform: decimalArgument)
    var tail: Double = defaultTailSeconds
    @Option(help: "Render sample rate in Hz (default: the automation file's rate line, else the input's).", transform: decimalArgument)
    var rate: Double?
    @Option(help: "Frames per render call (offline the engine renders in large blocks; the result does not depend on it).")
    var block: Int = 16_384
    @Option(help: "Output sample format: 16, 24 or float (default: the input's).", completion: Completions.formats)
    var format: String?
    @Option(name: [.customShort("t"), .long], help: "Container written to standard output (output -): wav, flac, ogg or mp3.",
            completion: .list(AudioContainer.allCases.map(\.fileExtension)))
    var type: String?

    func validate() throws {
        guard tail >= 0 && tail.isFinite && tail <= 3600 else { throw ValidationError("--tail must be 0…3600 seconds") }
        if let rate { try validateSampleRate(rate) }
        guard block >= 1 && block <= 65536 else { throw ValidationError("--block must be 1…65536 frames") }
        if let format { guard SampleFormat(rawValue: format) != nil else { throw ValidationError("--format must be 16, 24 or float") } }
        if let type {
            guard output == StandardOutputWriter.name else {
                throw ValidationError("--type is for output - (standard output); a file's extension names its type")
            }
            guard AudioContainer(path: "x." + type) != nil else { throw ValidationError("--type must be \(AudioContainer.names())") }
        }
    }

    func run() throws {
        try runReportingErrors {
            // Standard input is copied before anything else is read (a pipe tells no length).
            let standardInput = input == StandardInput.name ? try StandardInput() : nil
            let inputPath = standardInput?.path ?? input
            do {
                try render(inputPath: inputPath)
            } catch let error as AudioFileError {
                throw error.naming(inputPath, as: input)
            }
        }
    }

    private func render(inputPath: String) throws {
        let presets = PresetStore.standard()
        reportPresetProblems(presets)
        var state = RackState()
        if let name = preset { state = try lookUpPreset(name, in: presets).state }
        try applySettings(sets, to: &state)

        // The input's length is needed to warn about events past the end.
        let info = try AudioFileReader(path: inputPath).info
        var request = RenderRequest(inputPath: inputPath, outputPath: output)
        request.inputName = input
        request.outputType = type.flatMap { AudioContainer(path: "x." + $0) }
        request.initialState = state
        if let automation {
            let length = Double(info.frames) / info.sampleRate + tail
            request.automation = try loadAutomation(automation, presets: presets, length: length)
        }
        request.tailSeconds = tail
        // nil: the input's (checked by the renderer, 65 if unsupported); a recording's rate line
        // gives the rate it was heard at.
        request.sampleRate = rate ?? request.automation?.sampleRate
        request.blockFrames = block
        request.format = format.flatMap(SampleFormat.init(rawValue:))
        if request.format == nil {
            let chosen = SampleFormat.renderDefault(input: info.sampleFormat, container: request.outputContainer)
            if let from = chosen.substituted, let container = request.outputContainer {
                warn("rack: \(container.fileExtension.uppercased()) cannot store \(from.rawValue) samples; writing \(chosen.format.rawValue)-bit")
            }
            request.format = chosen.format
        }
        if !request.writesStandardOutput {
            for stale in AudioFileWriter.removeStaleTemporaryFiles(besides: output) {
                warn("rack: removed '\(stale)' (left by an interrupted render)")
            }
        }
        let label = request.writesStandardOutput ? "standard output" : (output as NSString).lastPathComponent
        let bar = isatty(STDERR_FILENO) == 1 ? ProgressBar(label: label) : nil
        let report = try OfflineRenderer.render(request, presets: presets, progress: bar.map { b in { b.update($0) } })
        bar?.finish()
        // One closing line, on a terminal or not (as sox and ffmpeg end with a summary), on stderr.
        let destination = request.writesStandardOutput ? "standard output" : "'\(output)'"
        warn(String(format: "rack: rendered %.2f s to %@ (%.0f Hz, %@; %.0f× realtime)",
                    Double(report.frames) / report.sampleRate, destination, report.sampleRate, report.format.rawValue, report.realtimeFactor))
    }
}
