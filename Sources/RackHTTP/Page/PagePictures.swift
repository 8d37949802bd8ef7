import RackEngine
import RackPlot

/// The pictures the web page shows, drawn by RackPlot (the same code as `rack plot`) from the
/// values rack holds at the moment of the request: the page asks again, at a new URL, whenever
/// rack pushes a change of a parameter a picture depends on. A new picture (the reverb's decay,
/// say) is one more row here; the page builds itself from `manifest`.
enum PagePictures {
    /// One picture.
    struct Picture: Sendable {
        /// Its URL is `/ui/picture/<name>.svg`.
        let name: String
        /// Its accessible name.
        let title: String
        /// The section of the page it is shown in (a parameter group).
        let group: ParameterGroup
        /// The parameters it is drawn from: the page asks for it again when one changes.
        let parameters: [ParameterID]
        /// The SVG for the parameter values given (by `ParameterID`), at a sample rate in Hz.
        let draw: @Sendable (_ value: (ParameterID) -> Double, _ sampleRateHz: Double) -> String
    }

    static let pathPrefix = PageAssets.basePath + "picture/"

    /// Every picture the page shows.
    static let all: [Picture] = [
        Picture(name: "response", title: "the low-pass filter's magnitude response now", group: .filter,
                parameters: Parameters.all.filter { $0.group == .filter }.map(\.id),
                draw: { value, rate in
                    ResponsePlot.svg(curves: [ResponseCurveSpec(name: "now", cutoff: value(.cutoff), resonance: value(.resonance))],
                                     sampleRate: rate)
                }),
    ]

    /// The picture at a request path, or nil.
    static func picture(at path: String) -> Picture? {
        guard path.hasPrefix(pathPrefix), path.hasSuffix(".svg") else { return nil }
        let name = path.dropFirst(pathPrefix.count).dropLast(".svg".count)
        return all.first { $0.name == name }
    }

    /// `/ui/pictures.json`: each picture's URL, title, group and the addresses it is drawn from.
    static var manifest: JSON {
        .array(all.map { p in
            .object([("name", .string(p.name)), ("url", .string(pathPrefix + p.name + ".svg")), ("title", .string(p.title)),
                     ("group", .string(p.group.rawValue)),
                     ("addresses", .array(p.parameters.map { .string(Parameters[$0].address) }))])
        })
    }

    /// The SVG of `picture` for the values of `snapshot`.
    static func svg(_ picture: Picture, snapshot: LiveState.Snapshot) -> String {
        picture.draw({ snapshot.number(Parameters[$0]) }, snapshot.sampleRateHz)
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

    /// The JACK sample rate of `/rack/status`, or 48 kHz while there is none.
    var sampleRateHz: Double {
        if case let .int(rate)? = values["/rack/status"]?.first, rate >= 8000 { return Double(rate) }
        return 48_000
    }
}
