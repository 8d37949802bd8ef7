import CJack
import Foundation

extension JackDriver {
    /// Which JACK implementation the library is: PipeWire's or JACK's own (jackd2).
    public enum Server: Sendable, Equatable {
        case pipewire(version: String)
        case jack(version: String)

        /// From `jack_get_version_string()`: "3.0.0.0 (using PipeWire 0.3.65)" or "1.9.21".
        public init(libraryVersion v: String) {
            if let r = v.range(of: "PipeWire ") {
                let rest = v[r.upperBound...]
                self = .pipewire(version: String(rest.prefix { $0 != ")" && $0 != " " }))
            } else {
                self = .jack(version: v)
            }
        }

        public var isPipeWire: Bool { if case .pipewire = self { return true } else { return false } }

        /// Whether `jack_client_close` is safe on a client whose server died. PipeWire 1.4.9 and
        /// 1.6.8 free a connected port's buffers twice there; 0.3.65
        /// closes such a client cleanly (tested: connected port, running callback, glibc's
        /// heap checks on). PipeWire 1.0 and later are taken to be affected.
        public var closesDeadClientsSafely: Bool {
            guard case .pipewire(let v) = self else { return true }
            let major = Int(v.prefix { $0.isNumber }) ?? 1
            return major < 1
        }

        /// "PipeWire 0.3.65" or "JACK 1.9.21".
        public var description: String {
            switch self {
            case .pipewire(let v): return "PipeWire \(v)"
            case .jack(let v): return "JACK \(v)"
            }
        }
    }

    /// The one line `rack run` prints when no server answers. Its example commands start the
    /// server rack looked for: `jackd -n NAME …` when JACK_DEFAULT_SERVER names one.
    static func noServerHint(_ server: Server) -> String {
        let env = ProcessInfo.processInfo.environment
        if server.isPipeWire {
            let remote = env["PIPEWIRE_REMOTE"].map { "'\($0)'" } ?? "(pipewire-0)"
            return "no PipeWire server \(remote) is running (rack uses PipeWire's JACK library); start it, e.g. `systemctl --user start pipewire wireplumber`, or run rack with jackd's library"
        }
        let asked = env["JACK_DEFAULT_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
        let name = asked.map { "'\($0)'" } ?? "(default)"
        let jackd = asked.map { "jackd -n \(shellQuoted($0))" } ?? "jackd"
        return "no JACK server \(name) is running; start one, e.g. `\(jackd) -d alsa` or `\(jackd) --no-realtime -d dummy -r 48000 -p 256 &`, or under PipeWire run `pw-jack rack run` (or put pipewire-jack's libjack first: LD_LIBRARY_PATH=/usr/lib/$(uname -m)-linux-gnu/pipewire-0.3/jack)"
    }

    /// `word` as a POSIX shell reads it back: as it is when it holds only letters, digits and
    /// `-_.:/@+=,%`, else in single quotes (a quote inside as `'\''`).
    static func shellQuoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "-_.:/@+=,%".unicodeScalars.contains($0)
        }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
