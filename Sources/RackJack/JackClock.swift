import CJack
import Foundation
import RackEngine

/// Time: JACK's frame clock mapped to engine samples, the first cycle, DSP time per cycle.
extension JackDriver {
    /// The engine sample at which a moment `secondsFromNow` ahead will be rendered, from the
    /// latest cycle's frame time: JACK's clock maps the wall clock to frames, the trampoline
    /// maps frames to engine samples. Nil when not running (apply as soon as possible).
    public func engineSample(secondsFromNow: Double) -> Int64? {
        guard let context, let client, isRunning else { return nil }
        var cycleFrame: UInt32 = 0
        var engineTime: Int64 = 0
        guard rack_jack_time_mapping(context, &cycleFrame, &engineTime) != 0 else { return nil }
        let targetUsecs = Int64(jack_get_time()) + Int64(secondsFromNow * 1e6)
        guard targetUsecs > 0 else { return nil }
        let targetFrame = jack_time_to_frames(client, jack_time_t(targetUsecs))
        // Frame times wrap at 2^32: the signed difference is what counts.
        let delta = Int64(Int32(bitPattern: targetFrame &- cycleFrame))
        return engineTime + delta
    }

    /// Waits (up to `timeout` seconds) until JACK has run the process callback at least once,
    /// so that "ready" means sound is flowing and timetags can be mapped to samples. A busy
    /// server may take a while to run a newly activated client. Returns false on timeout.
    public func waitForFirstCycle(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let context, rack_jack_cycles(context) > 0 { return true }
            usleep(2_000)
        }
        return context.map { rack_jack_cycles($0) > 0 } ?? false
    }

    /// DSP time per cycle since the last call.
    public func takeCycleStats() -> CycleStats {
        guard let context else { return CycleStats() }
        var all: [UInt32] = []
        var buf = [UInt32](repeating: 0, count: 4096)
        while true {
            let n = Int(rack_jack_take_timings(context, &buf, 4096))
            all += buf.prefix(n)
            if n < 4096 { break }
        }
        guard !all.isEmpty else { return CycleStats() }
        all.sort()
        func us(_ v: UInt32) -> Double { Double(v) / 1000 }
        return CycleStats(cycles: all.count, medianMicroseconds: us(all[all.count / 2]),
                          p99Microseconds: us(all[min(all.count - 1, all.count * 99 / 100)]),
                          maxMicroseconds: us(all.last!))
    }
}
