import Foundation

/// An octave band-pass filter as acoustics measures with (IEC 61260-1, ISO 3382-1): band edges
/// at f_c/√2 and f_c·√2, a 3rd-order Butterworth band-pass (6 poles) made by the bilinear
/// transform with both edges prewarped, run as three biquads in series in double precision.
///
/// Design: the low-pass prototype's poles p_k = e^{jπ(2k+2)/6} (k = 0, 1, 2) go through the
/// band-pass transform s → (s² + ω₀²)/(B·s) (ω₀² = ω₁ω₂, B = ω₂ − ω₁: each pole p gives the
/// roots of s² − p·B·s + ω₀² = 0), then z = (2fs + s)/(2fs − s). Each biquad is one pole pair
/// with one zero at z = 1 and one at z = −1, scaled to 0 dB at the band centre.
struct OctaveBand {
    /// One biquad: b0·(1 − z⁻²)/(1 + a1·z⁻¹ + a2·z⁻²).
    struct Section {
        var gain: Double
        var a1: Double
        var a2: Double
    }

    /// Band centre (Hz) and the three sections.
    let centreHz: Double
    let sections: [Section]

    /// The band centred on `centreHz` (its upper edge below Nyquist) at `sampleRate` Hz.
    init(centreHz: Double, sampleRate fs: Double) {
        precondition(centreHz * 2.0.squareRoot() < fs / 2, "octave band above Nyquist")
        self.centreHz = centreHz
        let prewarp = { (hz: Double) in 2 * fs * tan(Double.pi * hz / fs) }
        let lowEdge = prewarp(centreHz / 2.0.squareRoot()), highEdge = prewarp(centreHz * 2.0.squareRoot())
        let centre = (lowEdge * highEdge).squareRoot(), bandwidth = highEdge - lowEdge
        // One of each conjugate pair: both roots of the complex prototype pole, one of the real one's.
        let upper = Complex(cos(2 * Double.pi / 3), sin(2 * Double.pi / 3))
        var analogPoles = Self.bandPassRoots(prototypePole: upper, centre: centre, bandwidth: bandwidth)
        analogPoles.append(Self.bandPassRoots(prototypePole: Complex(-1, 0), centre: centre, bandwidth: bandwidth)[0])
        let centreRadians = 2 * Double.pi * centreHz / fs
        sections = analogPoles.map { s in
            let z = (Complex(2 * fs, 0) + s) / (Complex(2 * fs, 0) - s)
            var section = Section(gain: 1, a1: -2 * z.real, a2: z.real * z.real + z.imaginary * z.imaginary)
            section.gain = 1 / section.magnitude(atRadians: centreRadians)
            return section
        }
    }

    /// The roots of s² − p·B·s + ω₀² = 0.
    static func bandPassRoots(prototypePole p: Complex, centre: Double, bandwidth: Double) -> [Complex] {
        let pb = p * Complex(bandwidth, 0)
        let root = (pb * pb - Complex(4 * centre * centre, 0)).squareRoot()
        return [(pb + root) * Complex(0.5, 0), (pb - root) * Complex(0.5, 0)]
    }

    /// `signal` through the band (zero initial state).
    func filter(_ signal: [Float]) -> [Double] {
        var y = signal.map(Double.init)
        for s in sections {
            // Direct form II transposed.
            var state1 = 0.0, state2 = 0.0
            for i in y.indices {
                let x = y[i]
                let out = s.gain * x + state1
                state1 = -s.a1 * out + state2
                state2 = -s.gain * x - s.a2 * out
                y[i] = out
            }
        }
        return y
    }
}

extension OctaveBand.Section {
    /// |H(e^{jw})| at `w` radians per sample.
    func magnitude(atRadians w: Double) -> Double {
        let zInverse = Complex(cos(w), -sin(w))
        let zInverse2 = zInverse * zInverse
        let numerator = Complex(gain, 0) * (Complex(1, 0) - zInverse2)
        let denominator = Complex(1, 0) + Complex(a1, 0) * zInverse + Complex(a2, 0) * zInverse2
        return numerator.magnitude / denominator.magnitude
    }
}
