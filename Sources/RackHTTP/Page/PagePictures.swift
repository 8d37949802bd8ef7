import RackDSP
import RackEngine
import RackPlot

/// The pictures the web page shows, drawn by RackPlot (the same code as `rack plot`) from the
/// values rack holds. Each is drawn by a `PictureWorker` of its own, off the HTTP event loop and
/// the control thread, whenever what it is drawn from changes; the page is pushed the new
/// version over its WebSocket and asks for it. A new picture is one more row here; the page
/// builds itself from `manifest`.
enum PagePictures {
    /// What a picture is drawn from: two states with equal inputs draw the same picture.
    enum Inputs: Sendable, Equatable {
        /// The filter's magnitude response (`rack plot --response`).
        case response(cutoffHz: Double, resonanceDB: Double, sampleRateHz: Double)
        /// The reverb's RT60 per octave band (`rack plot --decay --rate sampleRateHz`).
        case decay(room: Room, shape: ReverbShape, sampleRateHz: Double)

        /// The picture these inputs draw, by the code of `rack plot`.
        var svg: String {
            switch self {
            case let .response(cutoff, resonance, rate):
                ResponsePlot.svg(curves: [ResponseCurveSpec(name: "now", cutoff: cutoff, resonance: resonance)], sampleRate: rate)
            case let .decay(room, shape, rate):
                DecayPlot.svg(curves: [DecayCurveSpec(name: "now", room: room, shape: shape)], sampleRate: rate)
            }
        }
    }

    /// One picture.
    struct Picture: Sendable {
        /// Its URL is `/ui/picture/<name>.svg`; its version is pushed at `/ui/picture/<name>`.
        let name: String
        /// Its accessible name.
        let title: String
        /// The section of the page it is shown in (a parameter group).
        let group: ParameterGroup
        /// The parameters it may be drawn from: a change of one makes its worker look again.
        let parameters: [ParameterID]
        /// What it is drawn from in a state (`Inputs.svg` draws it).
        let inputs: @Sendable (LiveState.Snapshot) -> Inputs

        var url: String { pathPrefix + name + ".svg" }
        /// The address its version (`i`, from 1) is pushed at to WebSocket listeners.
        var versionAddress: String { pathPrefix + name }
        /// The addresses whose changes may change it: its parameters and `/rack/status` (the
        /// sample rate).
        var watchedAddresses: [String] { parameters.map { Parameters[$0].address } + [OSCCommandDeclaration.status.address] }
    }

    static let pathPrefix = PageAssets.basePath + "picture/"

    /// The highest rate (Hz) the decay picture is measured at: a JACK rate above it is measured
    /// at this rate, which bounds a render (the worst, a 30 s decay: 60.3 s of response) whatever
    /// the server runs at; the highest band drawn ends at 11.3 kHz, well inside its Nyquist.
    static let decayMaximumRateHz = 48_000.0

    /// Every picture the page shows.
    static let all: [Picture] = [
        Picture(name: "response", title: "the low-pass filter's magnitude response now", group: .filter,
                parameters: Parameters.all.filter { $0.group == .filter }.map(\.id),
                inputs: { snapshot in
                    .response(cutoffHz: snapshot.number(Parameters[.cutoff]), resonanceDB: snapshot.number(Parameters[.resonance]),
                              sampleRateHz: snapshot.sampleRateHz)
                }),
        Picture(name: "decay", title: "the reverb's decay time per octave band now (RT60, as rack plot --decay)", group: .reverb,
                parameters: [.room] + ReverbControls.followingRoom,
                inputs: { snapshot in
                    let state = snapshot.rackState
                    var shape = state.reverbShape
                    shape.freeze = false   // the measurement ignores it: no new picture for it
                    return .decay(room: state.room, shape: shape, sampleRateHz: min(snapshot.sampleRateHz, decayMaximumRateHz))
                }),
    ]

    /// The picture at a request path, or nil.
    static func picture(at path: String) -> Picture? {
        guard path.hasPrefix(pathPrefix), path.hasSuffix(".svg") else { return nil }
        let name = path.dropFirst(pathPrefix.count).dropLast(".svg".count)
        return all.first { $0.name == name }
    }

    /// `/ui/pictures.json`: each picture's URL, title, group, the address its version is pushed
    /// at and the addresses it is drawn from.
    static var manifest: JSON {
        .array(all.map { p in
            .object([("name", .string(p.name)), ("url", .string(p.url)), ("title", .string(p.title)),
                     ("group", .string(p.group.rawValue)), ("version", .string(p.versionAddress)),
                     ("addresses", .array(p.parameters.map { .string(Parameters[$0].address) }))])
        })
    }

    /// The SVG of `picture` for the values of `snapshot`, drawn now (tests; the server's
    /// pictures come from their workers).
    static func svg(_ picture: Picture, snapshot: LiveState.Snapshot) -> String {
        picture.inputs(snapshot).svg
    }
}

extension LiveState.Snapshot {
    /// A parameter's value as a number (a choice's index), the table's default before any.
    func number(_ spec: ParameterSpec) -> Double {
        switch values[spec.address]?.first {
        case let .float(v)?: v
        case let .int(v)?: Double(v)
        case let .string(name)?: Double(spec.choices.firstIndex(of: name) ?? Int(spec.defaultValue))
        case nil: spec.defaultValue
        }
    }

    /// Every parameter's value as a `RackState` (what `rack plot --set` builds for the CLI).
    var rackState: RackState {
        var state = RackState()
        for spec in Parameters.all { state[spec.id] = number(spec) }
        return state
    }

    /// The JACK sample rate of `/rack/status`, or 48 kHz while there is none.
    var sampleRateHz: Double {
        if case let .int(rate)? = values[OSCCommandDeclaration.status.address]?.first, rate >= 8000 { return Double(rate) }
        return 48_000
    }
}
