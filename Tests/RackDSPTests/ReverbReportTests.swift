import Foundation
import XCTest
@testable import RackDSP

#if REVERB_REPORT
/// The per-room table of the reverb report (scripts/reverb-report): the same impulse responses
/// and measures as `ReverbQualityTests`, printed as a Markdown table and, with the responses,
/// written to the directory named by `REVERB_REPORT_DIR` (for the spectrograms). A report, not
/// a test: compiled only with `-DREVERB_REPORT` (scripts/reverb-report builds it so, in a
/// scratch directory of its own), so the suite neither runs nor skips it. The figures
/// themselves are asserted by `ReverbQualityTests` and `ReverbTests`.
final class ReverbReportTests: XCTestCase {
    typealias IRA = ImpulseResponseAnalysis

    func testWriteRoomTable() throws {
        let environment = ProcessInfo.processInfo.environment
        let directory = environment["REVERB_REPORT_DIR"] ?? ""
        guard !directory.isEmpty else { return XCTFail("REVERB_REPORT_DIR not set") }
        let fs = 48_000.0
        var lines = [
            "| room | target s | T20 s | T30 s | mixing time ms | echo density @100 ms | ringing dB vs noise | "
                + "late L/R correlation | DC gain dB | C80 dB | loudness dB |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        var loudness: [Double] = []
        for r in ReverbTests.responses48k {
            let t20 = IRA.reverberationTime(left: r.left, right: r.right, sampleRate: fs) ?? .nan
            let t30 = IRA.reverberationTime(left: r.left, right: r.right, sampleRate: fs, lower: -35) ?? .nan
            let density = IRA.echoDensity(left: r.left, right: r.right, sampleRate: fs)
            let tmix = IRA.mixingTime(density: density) ?? .nan
            let ringing = IRA.ringing(left: r.left, right: r.right, sampleRate: fs)
            let correlation = IRA.lateCorrelation(left: r.left, right: r.right, sampleRate: fs)
            let dc = max(IRA.dcGain(r.left), IRA.dcGain(r.right))
            let level = IRA.loudness(left: r.left, right: r.right)
            loudness.append(level)
            lines.append("| \(r.room.name) " + String(
                format: "| %.1f | %.3f | %.3f | %.0f | %.2f | %+.1f | %+.3f | %.0f | %+.1f | %.1f |",
                r.room.targetDecaySeconds, t20, t30, tmix * 1000,
                IRA.density(density, at: 0.1), ringing.tail - ringing.reference, correlation, dc,
                IRA.clarity80(left: r.left, right: r.right, sampleRate: fs), level))
            // Interleaved float32, little-endian, 48 kHz stereo.
            var interleaved = [Float](repeating: 0, count: 2 * r.left.count)
            for i in 0..<r.left.count {
                interleaved[2 * i] = r.left[i]
                interleaved[2 * i + 1] = r.right[i]
            }
            let data = interleaved.withUnsafeBufferPointer { Data(buffer: $0) }
            try data.write(to: URL(fileURLWithPath: directory).appendingPathComponent("\(r.room.name).f32"))
        }
        lines.append("")
        lines.append(String(format: "Loudness spread across the rooms: %.1f dB (white impulse, both channels).",
                            loudness.max()! - loudness.min()!))
        let table = lines.joined(separator: "\n") + "\n"
        try table.write(to: URL(fileURLWithPath: directory).appendingPathComponent("table.md"),
                        atomically: true, encoding: .utf8)
        print(table)
    }
}
#endif
