import Foundation
import RackDSP
import RackEngine
import RackFiles

/// A value at a time.
public struct TimelinePoint: Sendable, Equatable {
    public let time: Double
    public let value: Double
}

/// A stretch of one parameter's curve: held at a value, or ramping.
public struct CurveSegment: Sendable {
    public enum Kind: String, Sendable { case hold, ramp }
    public let kind: Kind
    /// The automation line whose event started it (nil: the starting state).
    public let line: Int?
    /// Time-ascending points; a ramp's are samples of the engine's `Ramp`.
    public let points: [TimelinePoint]
    /// How many of the curve's stretches this segment stands for: 1, or more when stretches too
    /// narrow to see apart were merged (`CurveDecimator`).
    public let merged: Int

    init(kind: Kind, line: Int?, points: [TimelinePoint], merged: Int = 1) {
        self.kind = kind
        self.line = line
        self.points = points
        self.merged = merged
    }
}

/// A value a parameter was sent to, for the lane's labels.
public struct ParameterChange: Sendable {
    public let line: Int
    /// When the ramp starts.
    public let time: Double
    /// When it arrives (or is interrupted by the next change).
    public let arrival: Double
    /// Until when it stays there: the next change of this parameter, or the end of the axis.
    public let holdsUntil: Double
    public let value: Double
}

/// The curve of one continuous parameter.
public struct ParameterTrack: Sendable {
    public let id: ParameterID
    public let segments: [CurveSegment]
    public let changes: [ParameterChange]
    public var spec: ParameterSpec { Parameters[id] }
}

/// A stretch of time with one reverb room. The change into it crossfades from `start` to `fadeEnd`.
public struct RoomSpan: Sendable {
    public let room: Room
    public let start: Double
    public let fadeEnd: Double
    public let end: Double
    /// The line that changed to this room (nil: the starting state).
    public let line: Int?
}

/// A preset recall.
public struct PresetMark: Sendable {
    public let line: Int
    public let time: Double
    public let name: String
    /// Longest ramp of the recall, in seconds.
    public let rampSeconds: Double
}

/// A problem `rack check` reports, placed on the time axis.
public struct TimelineProblem: Sendable {
    public let line: Int
    public let severity: AutomationDiagnostic.Severity
    public let message: String
    public let time: Double
    /// False when the line's own time could not be read: it is shown at the previous line's time.
    public let timeIsExact: Bool
}

/// Everything `rack plot` draws for an automation file: the curves the engine would follow,
/// computed with the engine's own `Ramp` on the engine's sample grid.
public struct Timeline: Sendable {
    public let fileName: String
    public let sampleRate: Double
    /// The input's length when given (`--length`): marks the end; later events are ignored, as
    /// the engine ignores them.
    public let inputLength: Double?
    /// End of the time axis in seconds.
    public let duration: Double
    /// Continuous parameters, in table order.
    public let tracks: [ParameterTrack]
    public let rooms: [RoomSpan]
    public let presets: [PresetMark]
    public let problems: [TimelineProblem]
    public let eventCount: Int
    /// How the rack starts ("parameter table defaults", "preset Warm", …).
    public let startDescription: String

    public var errorCount: Int { problems.filter { $0.severity == .error }.count }
    public var warningCount: Int { problems.filter { $0.severity == .warning }.count }

    /// Parses `text` as `rack check` does and builds the timeline.
    public static func make(text: String, fileName: String, presets: PresetStore, sampleRate: Double = 48_000,
                            length: Double? = nil, initialState: RackState = RackState(),
                            startDescription: String = "parameter table defaults") -> Timeline {
        let automation = Automation.parse(text, presetNames: Set(presets.all.map(\.name)),
                                          presetAtIndex: { presets.preset(index: $0)?.name }, length: length)
        return make(automation: automation, text: text, fileName: fileName,
                    presetState: { presets.preset(named: $0)?.state }, sampleRate: sampleRate, length: length,
                    initialState: initialState, startDescription: startDescription)
    }

    /// Builds the timeline of a parsed automation. `text` is the file (to place problems on the
    /// time axis); `presetState` resolves a recalled preset.
    public static func make(automation: Automation, text: String, fileName: String,
                            presetState: (String) -> RackState?, sampleRate: Double = 48_000,
                            length: Double? = nil, initialState: RackState = RackState(),
                            startDescription: String = "parameter table defaults") -> Timeline {
        let rate = sampleRate
        let initialState = automation.startingState(from: initialState, presetState: presetState)
        let lengthFrames = length.map { Int64(($0 * rate).rounded()) }
        let scheduled = schedule(automation, sampleRate: rate, presetState: presetState, lengthFrames: lengthFrames)
        let problems = placeProblems(automation.diagnostics, text: text)

        // The axis ends a little after the last thing happening (or at the input's end).
        var contentEnd = 0.0
        for e in scheduled {
            let spec = Parameters[e.parameter]
            contentEnd = max(contentEnd, Double(e.sampleTime + effectiveFrames(e, spec, rate)) / rate)
        }
        for e in automation.events { contentEnd = max(contentEnd, e.time) }
        for p in problems { contentEnd = max(contentEnd, p.time) }
        let duration: Double
        if let length, length >= contentEnd {
            duration = length
        } else {
            let padded = max(1, max(contentEnd, length ?? 0) * 1.04 + 0.25)
            let step = Ticks.niceStep(span: padded, target: 10)
            duration = (padded / step).rounded(.up) * step
        }
        let endFrame = Int64((duration * rate).rounded())

        // The same pass for every parameter the engine makes: events in time order, each one
        // retargeting the parameter's ramp from wherever it is at that sample.
        var tracks: [ParameterTrack] = []
        for spec in Parameters.all where spec.taper != .choice {
            let mine = scheduled.filter { $0.parameter == spec.id }
            tracks.append(track(spec, events: mine, initial: initialState[spec.id], rate: rate,
                                endFrame: endFrame, duration: duration))
        }
        let rooms = roomSpans(scheduled.filter { $0.parameter.isRoom }, initial: initialState.room,
                              rate: rate, duration: duration)

        var marks: [PresetMark] = []
        for e in automation.events {
            guard case let .preset(name, _) = e.action else { continue }
            let t = Int64((e.time * rate).rounded())
            if let lengthFrames, t >= lengthFrames { continue }
            let longest = scheduled.filter { $0.line == e.line }
                .map { Double(effectiveFrames($0, Parameters[$0.parameter], rate)) / rate }.max() ?? 0
            marks.append(PresetMark(line: e.line, time: Double(t) / rate, name: name, rampSeconds: longest))
        }
        return Timeline(fileName: fileName, sampleRate: rate, inputLength: length, duration: duration,
                        tracks: tracks, rooms: rooms, presets: marks, problems: problems,
                        eventCount: automation.events.count, startDescription: startDescription)
    }

    /// A parameter change the engine receives, with the automation line it came from.
    struct Scheduled {
        let line: Int
        let sampleTime: Int64
        let parameter: ParameterID
        let value: Double
        let ramp: RampLength

        init(line: Int, sampleTime: Int64, parameter: ParameterID, value: Double, ramp: RampLength) {
            self.line = line
            self.sampleTime = sampleTime
            self.parameter = parameter
            self.value = value
            self.ramp = ramp
        }

        /// The change of `event` (a `set` at a sample), from line `line`; nil for any other event.
        init?(line: Int, event: EngineEvent) {
            guard let change = event.action.parameterChange, case let .at(sampleTime) = event.time else { return nil }
            self.init(line: line, sampleTime: sampleTime, parameter: change.parameter, value: change.value,
                      ramp: change.ramp)
        }
    }

    /// The parameter events the engine receives for `automation`: the same mapping as
    /// `Automation.engineEvents` (one event per `set`, one per parameter for a preset recall,
    /// times and ramps rounded to samples, events at or after the end left out), with line numbers.
    static func schedule(_ automation: Automation, sampleRate rate: Double, presetState: (String) -> RackState?,
                         lengthFrames: Int64?) -> [Scheduled] {
        func ramp(_ s: Double?) -> RampLength { RampLength(frames: s.map { Int64(($0 * rate).rounded()) } ?? 0) }
        var out: [Scheduled] = []
        let setAt = automation.parametersSet(sampleRate: rate)
        for e in automation.events where !Automation.isStartingState(e) {
            let t = Int64((e.time * rate).rounded())
            if let lengthFrames, t >= lengthFrames { continue }
            switch e.action {
            case let .set(id, value, seconds):
                out.append(Scheduled(line: e.line, sampleTime: t, parameter: id, value: value, ramp: ramp(seconds)))
                if id == .room, let room = Room.at(index: Int(value)) {
                    out += RoomRule.implied(by: room, setAlso: setAt[t] ?? []).map {
                        Scheduled(line: e.line, sampleTime: t, parameter: $0.0, value: $0.1, ramp: .standard)
                    }
                }
            case let .preset(name, seconds):
                guard let state = presetState(name) else { continue }
                out += state.events(at: .at(t), ramp: ramp(seconds)).compactMap { Scheduled(line: e.line, event: $0) }
            case .play, .stop, .loop, .seek:
                continue
            }
        }
        return out
    }

    /// The ramp length the engine uses for `e` (the engine's own rule, `RampLength.resolvedFrames`).
    static func effectiveFrames(_ e: Scheduled, _ spec: ParameterSpec, _ rate: Double) -> Int64 {
        e.ramp.resolvedFrames(spec.rampLimits(sampleRate: rate))
    }

    static func track(_ spec: ParameterSpec, events: [Scheduled], initial: Double, rate: Double,
                      endFrame: Int64, duration: Double) -> ParameterTrack {
        var ramp = Ramp(value: initial, shape: spec.rampShape, timing: spec.rampTiming)
        var changes: [ParameterChange] = []
        var position: Int64 = 0
        var line: Int? = nil
        // About one point every two pixels of a 900-pixel-wide plot.
        let framesPerPoint = max(1.0, duration * rate / 450)
        var segments = CurveDecimator(framesPerPoint: framesPerPoint, sampleRate: rate)

        func t(_ s: Int64) -> Double { Double(s) / rate }
        func emit(until end: Int64) {
            guard end > position else { return }
            if ramp.isMoving(at: position) {
                let rampEnd = min(end, ramp.endSample)
                let n = max(2, min(400, Int((Double(rampEnd - position) / framesPerPoint).rounded(.up))))
                var pts: [TimelinePoint] = []
                for i in 0...n {
                    let s = position + Int64((Double(rampEnd - position) * Double(i) / Double(n)).rounded())
                    pts.append(TimelinePoint(time: t(s), value: ramp.value(at: s)))
                }
                segments.append(CurveSegment(kind: .ramp, line: line, points: pts))
                position = rampEnd
            }
            if end > position {
                let v = ramp.value(at: position)
                segments.append(CurveSegment(kind: .hold, line: line, points: [
                    TimelinePoint(time: t(position), value: v), TimelinePoint(time: t(end), value: v)]))
                position = end
            }
        }

        for (i, e) in events.enumerated() {
            emit(until: min(e.sampleTime, endFrame))
            let frames = effectiveFrames(e, spec, rate)
            ramp.retarget(to: e.value, at: e.sampleTime, frames: frames)
            position = e.sampleTime
            line = e.line
            // It arrives at the end of its ramp unless the next event of this parameter comes first.
            let next = i + 1 < events.count ? events[i + 1].sampleTime : max(endFrame, e.sampleTime + frames)
            let arrival = min(e.sampleTime + frames, next)
            changes.append(ParameterChange(line: e.line, time: t(e.sampleTime), arrival: t(arrival),
                                           holdsUntil: t(next), value: ramp.value(at: arrival)))
        }
        emit(until: max(endFrame, position))
        return ParameterTrack(id: spec.id, segments: segments.finish(), changes: changes)
    }

    /// Room spans as the engine switches rooms: a change to the room already playing does
    /// nothing; several changes at one sample collapse into the last.
    static func roomSpans(_ events: [Scheduled], initial: Room, rate: Double, duration: Double) -> [RoomSpan] {
        let spec = Parameters[.room]
        var spans: [(room: Room, start: Double, fadeEnd: Double, line: Int?)] = [(initial, 0, 0, nil)]
        var current = initial
        for e in events {
            guard let r = Room.at(index: Int(e.value)), r != current else { continue }
            current = r
            let start = Double(e.sampleTime) / rate
            let fade = Double(effectiveFrames(e, spec, rate)) / rate
            if let last = spans.last, last.start == start, spans.count > 1 { spans.removeLast() }
            spans.append((r, start, start + fade, e.line))
        }
        // A change at time 0 replaces the starting room.
        if spans.count > 1 && spans[1].start == 0 { spans.removeFirst() }
        return spans.enumerated().map { i, s in
            RoomSpan(room: s.room, start: s.start, fadeEnd: s.fadeEnd,
                     end: i + 1 < spans.count ? spans[i + 1].start : max(duration, s.fadeEnd), line: s.line)
        }
    }

    /// Each diagnostic at the time written on its line; a line whose time cannot be read is
    /// shown at the time of the last readable line before it.
    static func placeProblems(_ diagnostics: [AutomationDiagnostic], text: String) -> [TimelineProblem] {
        let lines = Automation.lines(of: text)
        var times: [Double?] = []
        for raw in lines {
            let code = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let first = code.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).first
            if let first, let t = DecimalNumber.parse(String(first)), t >= 0, t <= Automation.maximumTimeSeconds { times.append(t) } else { times.append(nil) }
        }
        return diagnostics.map { d in
            let i = d.line - 1
            if i >= 0 && i < times.count, let t = times[i] {
                return TimelineProblem(line: d.line, severity: d.severity, message: d.message, time: t, timeIsExact: true)
            }
            var previous = 0.0
            var j = min(i, times.count) - 1
            while j >= 0 { if let t = times[j] { previous = t; break }; j -= 1 }
            return TimelineProblem(line: d.line, severity: d.severity, message: d.message, time: previous, timeIsExact: false)
        }
    }
}
