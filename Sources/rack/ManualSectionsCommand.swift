import ArgumentParser
import RackEngine
import RackFiles

/// `rack manual-sections` (hidden): the man page's sections that come from rack's tables
/// (`ManualSections`), in roff, for `scripts/gen-docs`.
struct ManualSectionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manual-sections",
        abstract: "Print the man page's PARAMETERS, OSC and AUTOMATION FILES sections (roff).",
        shouldDisplay: false)

    func run() throws { print(ManualSections.roff, terminator: "") }
}
