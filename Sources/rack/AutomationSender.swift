import Foundation
import RackEngine
import RackFiles
import RackOSC
import RackWire

/// Plays automation events to a live rack over UDP, paced by `LivePacing`: each event is a
/// bundle timetagged with its time, sent `lead` seconds ahead when there is room; several go
/// in one datagram as nested bundles (each keeps its own timetag). Replies are read while it
/// sends: `/synced` acknowledges what was sent before the `/sync` (the render thread took it),
/// `/rack/error` is a refusal (or a clamp, which is applied).
final class AutomationSender {
    /// What a send came to.
    struct Outcome {
        var sent = 0
        /// Events sent after their time (applied on arrival).
        var late = 0
        var refused = 0
        var clamped = 0
        var firstRefusal: String?
    }

    private let socket: UDPSocket
    private let target: OSCEndpoint
    private let lead: Double
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    private var outcome = Outcome()
    /// Event counts at each `/sync` not yet answered, oldest first.
    private var syncsInFlight: [Int] = []
    private var acknowledged = 0
    private var pongs = 0

    init(socket: UDPSocket, target: OSCEndpoint, lead: Double) {
        self.socket = socket
        self.target = target
        self.lead = lead
    }

    /// True when the rack answers `/ping` (a few tries, `timeout` seconds each).
    func rackAnswers(tries: Int = 4, timeout: Double = 0.5) -> Bool {
        for _ in 0..<tries {
            send(OSCMessage(OSCCommandDeclaration.ping.address).encoded())
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                readReplies(waitMilliseconds: 20)
                if pongs > 0 { return true }
            }
        }
        return false
    }

    /// Sends every event; `progress` is told the count sent so far. Returns once the last
    /// event's time has passed and the rack acknowledged everything (or `settle` ran out).
    func play(_ events: [AutomationEvent], progress: (Int) -> Void) -> Outcome {
        let origin = OSCTimeTag.now().adding(seconds: lead)
        let start = Date()
        var next = 0
        var lastProgress = Date.distantPast
        while next < events.count {
            let now = Date().timeIntervalSince(start)
            let batchEnd = sendable(events, from: next, now: now)
            if batchEnd > next {
                sendBatch(events[next..<batchEnd], origin: origin, now: now)
                next = batchEnd
                readReplies(waitMilliseconds: 0)
            } else {
                // Nothing may go yet: sleep in poll until the next event is due (or a reply
                // makes room), at most 20 ms.
                let due = (events[next].time - now) * 1000
                readReplies(waitMilliseconds: Int32(min(max(due, 1), 20)))
            }
            if Date().timeIntervalSince(lastProgress) > 0.1 { progress(next); lastProgress = Date() }
        }
        progress(next)
        finish(lastEventTime: events.last?.time ?? 0, start: start)
        return outcome
    }

    /// The end of the run of events from `first` that may go out now.
    private func sendable(_ events: [AutomationEvent], from first: Int, now: Double) -> Int {
        var end = first
        var bytes = 16
        while end < events.count, events[end].time <= now {
            if end >= LivePacing.windowEvents,
               events[end - LivePacing.windowEvents].time + LivePacing.settleSeconds > now - lead { break }
            if end - acknowledged >= LivePacing.unacknowledgedEvents { break }
            bytes += Self.element(events[end], origin: .immediately).count + 4
            if end > first && bytes > LivePacing.datagramBytes { break }
            end += 1
        }
        return end
    }

    /// One datagram of nested bundles, then a `/sync` when one is due.
    private func sendBatch(_ batch: ArraySlice<AutomationEvent>, origin: OSCTimeTag, now: Double) {
        let elements = batch.map { Self.element($0, origin: origin) }
        outcome.late += batch.filter { $0.time + lead < now }.count
        send(elements.count == 1 ? elements[0] : Self.nest(elements, timeTag: origin.adding(seconds: batch.first!.time)))
        let before = outcome.sent
        outcome.sent += batch.count
        if outcome.sent / LivePacing.syncEveryEvents > before / LivePacing.syncEveryEvents {
            syncsInFlight.append(outcome.sent)
            send(OSCMessage(OSCCommandDeclaration.sync.address).encoded())
        }
    }

    /// Waits for the rack to acknowledge everything and for the last event's time to pass.
    private func finish(lastEventTime: Double, start: Date) {
        syncsInFlight.append(outcome.sent)
        send(OSCMessage(OSCCommandDeclaration.sync.address).encoded())
        let deadline = max(lastEventTime + lead + LivePacing.settleSeconds, Date().timeIntervalSince(start) + 2)
        while Date().timeIntervalSince(start) < deadline {
            readReplies(waitMilliseconds: 10)
            if syncsInFlight.isEmpty && Date().timeIntervalSince(start) >= lastEventTime + lead + LivePacing.settleSeconds { break }
        }
    }

    private func send(_ bytes: [UInt8]) {
        while !socket.send(bytes, to: target) {
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS else { return }
            readReplies(waitMilliseconds: 1)
        }
    }

    /// Reads the replies waiting (the first after up to `waitMilliseconds`).
    private func readReplies(waitMilliseconds: Int32) {
        var wait = waitMilliseconds
        while true {
            let got = buffer.withUnsafeMutableBytes { socket.receive(into: $0, timeoutMilliseconds: wait) }
            guard let (count, _) = got else { return }
            wait = 0
            let messages = buffer.withUnsafeBytes { (try? OSCPacket.decode(UnsafeRawBufferPointer(rebasing: $0[..<count]))) ?? [] }
            for (m, _) in messages { note(m) }
        }
    }

    private func note(_ m: OSCMessage) {
        switch m.address {
        case OSCReplyAddress.pong:
            pongs += 1
        case OSCReplyAddress.synced:
            if !syncsInFlight.isEmpty { acknowledged = syncsInFlight.removeFirst() }
        case OSCReplyAddress.error:
            let reason = m.arguments.count > 1 ? m.arguments[1].string ?? "" : ""
            if reason.hasPrefix("clamped") { outcome.clamped += 1; return }
            outcome.refused += 1
            if outcome.firstRefusal == nil { outcome.firstRefusal = "\(m.arguments.first?.string ?? "?"): \(reason)" }
        default:
            break
        }
    }

    /// An event as a bundle of one message, timetagged with its time from `origin`.
    static func element(_ e: AutomationEvent, origin: OSCTimeTag) -> [UInt8] {
        OSCPacket.bundle([OSCMessage(e.address, SendCommand.arguments(of: e))], timeTag: origin.adding(seconds: e.time))
    }

    /// A bundle whose elements are the given encoded bundles.
    static func nest(_ elements: [[UInt8]], timeTag: OSCTimeTag) -> [UInt8] {
        var out = Array("#bundle\0".utf8)
        for i in (0..<8).reversed() { out.append(UInt8(truncatingIfNeeded: timeTag.raw >> (UInt64(i) * 8))) }
        for e in elements {
            let n = UInt32(e.count)
            out += [UInt8(n >> 24), UInt8((n >> 16) & 0xff), UInt8((n >> 8) & 0xff), UInt8(n & 0xff)]
            out += e
        }
        return out
    }
}
