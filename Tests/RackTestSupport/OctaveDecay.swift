import Foundation

/// T30 (s) per octave band of a stereo impulse response, measured the way the reverb tests
/// measure it and independently of `rack plot --decay`'s own filters: each channel through two
/// RBJ band-pass biquads (0 dB peak, Q = √2: about one octave) at each centre, the Schroeder
/// curve of the two channels' energies together, a least-squares line from −5 to −35 dB
/// extrapolated to 60 dB. Nil for a band whose curve does not reach −35 dB.
public func octaveT30(left: [Float], right: [Float], sampleRate rate: Double, centresHz: [Double]) -> [Double?] {
    centresHz.map { hz in
        schroederT30(octaveBandPass(left, centreHz: hz, sampleRate: rate),
                     octaveBandPass(right, centreHz: hz, sampleRate: rate), sampleRate: rate)
    }
}

/// Two RBJ band-pass biquads (0 dB peak, Q = √2) in series at `centreHz`.
public func octaveBandPass(_ x: [Float], centreHz: Double, sampleRate rate: Double) -> [Double] {
    let w = 2 * Double.pi * centreHz / rate
    let alpha = sin(w) / (2 * 2.0.squareRoot())
    let (b0, b2) = (alpha / (1 + alpha), -alpha / (1 + alpha))
    let (a1, a2) = (-2 * cos(w) / (1 + alpha), (1 - alpha) / (1 + alpha))
    var y = x.map(Double.init)
    for _ in 0..<2 {
        var (x1, x2, y1, y2) = (0.0, 0.0, 0.0, 0.0)
        for i in y.indices {
            let v = b0 * y[i] + b2 * x2 - a1 * y1 - a2 * y2
            (x2, x1, y2, y1) = (x1, y[i], y1, v)
            y[i] = v
        }
    }
    return y
}

/// T30 (s) of the Schroeder curve of l² + r²; nil when it does not reach −35 dB or does not fall.
public func schroederT30(_ l: [Double], _ r: [Double], sampleRate rate: Double) -> Double? {
    var energy = zip(l, r).map { $0 * $0 + $1 * $1 }
    guard energy.count > 2 else { return nil }
    for i in stride(from: energy.count - 2, through: 0, by: -1) { energy[i] += energy[i + 1] }
    let total = energy[0]
    guard total > 0 else { return nil }
    let db = energy.map { 10 * log10(max($0, 1e-300) / total) }
    guard let start = db.firstIndex(where: { $0 <= -5 }), let end = db.firstIndex(where: { $0 <= -35 }),
          end > start + 1 else { return nil }
    let ts = (start..<end).map { Double($0) / rate }, ys = Array(db[start..<end])
    let (mt, my) = (ts.reduce(0, +) / Double(ts.count), ys.reduce(0, +) / Double(ys.count))
    let slope = zip(ts, ys).reduce(0) { $0 + ($1.0 - mt) * ($1.1 - my) } / ts.reduce(0) { $0 + ($1 - mt) * ($1 - mt) }
    return slope < 0 ? -60 / slope : nil
}
