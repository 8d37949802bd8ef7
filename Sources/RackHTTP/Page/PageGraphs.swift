import RackDSP
import RackEngine
import RackPlot

/// What the page's live graphs (graph.js) take from rack rather than restate: the axes of
/// `rack plot --response`, the filter's highest cutoff as a share of the sample rate, and the
/// defaults a double tap returns the handle to. `GET /ui/graphs.json`. The page draws the
/// curve itself, from the filter's magnitude formula (`FilterResponse.magnitudeDecibels`); the
/// parameter ranges come from the namespace and the sample rate from `/rack/status`.
enum PageGraphs {
    static let path = PageAssets.basePath + "graphs.json"

    static let json: JSON = .object([
        ("response", .object([
            ("minimumFrequency", .number(ResponsePlot.minimumFrequency)),
            ("maximumFrequency", .number(ResponsePlot.maximumFrequency)),
            ("minimumDecibels", .number(ResponsePlot.minimumDecibels)),
            ("maximumDecibels", .number(ResponsePlot.maximumDecibels)),
            ("highestCutoffRatio", .number(StateVariableFilter.highestCutoffRatio)),
            ("cutoffDefault", .number(Parameters[.cutoff].defaultValue)),
            ("resonanceDefault", .number(Parameters[.resonance].defaultValue)),
        ])),
    ])
}
