/// A MIDI message rack acts on (everything else is parsed and ignored).
public enum MIDIMessage: Sendable, Equatable {
    /// Control change: `channel` 0…15, `controller` 0…127, `value` 0…127.
    case controlChange(channel: UInt8, controller: UInt8, value: UInt8)
    /// Program change: `channel` 0…15, `program` 0…127.
    case programChange(channel: UInt8, program: UInt8)
}

/// A MIDI 1.0 byte-stream parser, as a serial line or a JACK MIDI port delivers bytes: running
/// status, System Exclusive of any length (skipped without storing it), system realtime bytes
/// (0xF8…0xFF) anywhere, even inside another message (ignored, the message goes on), and
/// truncated messages (a status byte before the data is complete drops the partial message).
/// Data bytes with no status to belong to are ignored. Fixed size, no allocation.
///
/// - Realtime: safe
public struct MIDIParser: Sendable {
    /// The running status (a channel voice status byte), 0 when there is none.
    private var status: UInt8 = 0
    /// Data bytes of the message in progress.
    private var first: UInt8 = 0
    private var have = 0
    /// Inside a System Exclusive message (or a system common message rack ignores).
    private var skipping = false

    public init() {}

    /// Data bytes a channel voice status takes: 1 for program change and channel pressure, 2 else.
    @_noLocks @inline(__always)
    private static func dataLength(_ status: UInt8) -> Int {
        let kind = status & 0xF0
        return kind == 0xC0 || kind == 0xD0 ? 1 : 2
    }

    /// The end of one JACK MIDI event: a message it left incomplete is dropped (each event
    /// should hold whole messages); the running status and a SysEx in progress carry on.
    /// - Realtime: safe
    @_noLocks
    public mutating func endEvent() { have = 0 }

    /// Takes one byte; returns the message it completes, if rack acts on it.
    /// - Realtime: safe
    @_noLocks
    public mutating func feed(_ byte: UInt8) -> MIDIMessage? {
        if byte >= 0xF8 { return nil }                // realtime: transparent
        if byte >= 0x80 {
            have = 0
            if byte >= 0xF0 {
                // SysEx start, system common, or SysEx end: cancels running status.
                status = 0
                skipping = byte != 0xF7
                return nil
            }
            status = byte
            skipping = false
            return nil
        }
        if skipping || status == 0 { return nil }    // SysEx body, or data with no status
        let needed = Self.dataLength(status)
        if have == 0 && needed == 2 {
            first = byte
            have = 1
            return nil
        }
        have = 0                                      // complete; the status keeps running
        let channel = status & 0x0F
        switch status & 0xF0 {
        case 0xB0: return .controlChange(channel: channel, controller: first, value: byte)
        case 0xC0: return .programChange(channel: channel, program: byte)
        default: return nil
        }
    }
}
