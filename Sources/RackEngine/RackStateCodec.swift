import RackDSP

/// A field's value in a state file, as the file's JSON reader found it.
public enum StateValue: Sendable, Equatable {
    case number(Double)
    case string(String)
    /// Any other JSON value (true, false, null, an array, an object).
    case other
}

/// How a state file's number outside its parameter's range is taken.
public enum OutOfRangeRule: Sendable {
    /// It is an error (a preset: the file is wrong, nothing is loaded).
    case refuse
    /// It is clamped by the table's clamp (a session or a plugin's state: the rack's own saves).
    case clamp
}

/// Why a state file's field cannot be taken: one line, naming the field.
public struct StateFieldProblem: Error, Sendable, Equatable {
    public let reason: String
}

/// The one codec of `RackState`: every state a file or a host holds (presets, session files,
/// the plugins' saved states and preset files, automation's starting state) is read and written
/// here, every parameter by its table name. A field left out takes its row's missing-field
/// value (`ParameterSpec.missingValue`); values go through the table's clamp.
extension RackState {
    /// The state `fields` give (keyed by parameter name; fields naming no parameter are the
    /// caller's). Rows are read in table order, so `room` is known before the controls that
    /// follow it.
    public static func decode(_ fields: [String: StateValue], outOfRange: OutOfRangeRule) throws(StateFieldProblem) -> RackState {
        var state = RackState()
        for spec in Parameters.all {
            guard let field = fields[spec.name] else {
                state[spec.id] = spec.missingValue(room: state.room)
                continue
            }
            state[spec.id] = try spec.decode(field, outOfRange: outOfRange)
        }
        return state
    }

    /// Every parameter as a file stores it, in table order: its name and its value's JSON text
    /// (a room by its name, a number rounded to its precision: `ParameterSpec.format`).
    public var encodedFields: [(name: String, json: String)] {
        Parameters.all.map { spec in
            let text = spec.format(self[spec.id])
            return (spec.name, spec.taper == .choice ? JSON.quoted(text) : text)
        }
    }
}

extension ParameterSpec {
    /// The value a state file that leaves this parameter out gives it: the room's own value for
    /// a control that follows the room (files written before it existed sound as they did),
    /// else the table's default.
    public func missingValue(room: Room) -> Double {
        RoomRule.implied(by: room).first { $0.0 == id }?.1 ?? defaultValue
    }

    /// The value a state file's field gives this parameter: a room by name, anything else a
    /// finite number (clamped or refused outside the range, as `outOfRange` says).
    public func decode(_ field: StateValue, outOfRange: OutOfRangeRule) throws(StateFieldProblem) -> Double {
        if taper == .choice {
            guard case let .string(s) = field else {
                throw StateFieldProblem(reason: "field '\(name)' must be a string (one of \(choices.joined(separator: ", ")))")
            }
            guard let room = Room(name: s) else {
                throw StateFieldProblem(reason: s.count > StateFieldProblem.excerptCharacters
                    ? "field '\(name)' \(StateFieldProblem.excerpt(s)) is not a room" : Room.unknownNameReason(s))
            }
            return Double(room.rawValue)
        }
        guard case let .number(v) = field else { throw StateFieldProblem(reason: "field '\(name)' must be a number") }
        guard v.isFinite else { throw StateFieldProblem(reason: "field '\(name)' is not finite") }
        if outOfRange == .refuse && !(v >= minimum && v <= maximum) {
            throw StateFieldProblem(reason: "\(name) \(formatNumber(v)) is out of range \(formatNumber(minimum))…\(formatNumber(maximum)) \(unit)")
        }
        return clamp(v)
    }
}

extension StateFieldProblem {
    /// Most characters of a bad value quoted in a message; a longer one is cut with its length.
    public static let excerptCharacters = 64

    /// `value` quoted for a message, at most `excerptCharacters` of it.
    public static func excerpt(_ value: String) -> String {
        guard value.count > excerptCharacters else { return JSON.quoted(value) }
        return JSON.quoted(String(value.prefix(excerptCharacters))) + "… (\(value.count) characters)"
    }
}
