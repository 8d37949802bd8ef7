import Foundation

/// The reverb's quality measures on an impulse response, beside the Schroeder decay of
/// `ImpulseResponseAnalysis`: echo density and mixing time, late-tail ringing against noise with
/// the same envelope, late left/right correlation, DC gain and clarity. Each is defined here
/// once, from its published definition, and checked on synthetic signals with known answers
/// (`ReverbMeasuresTests`) before it is used on the reverb (`ReverbQualityTests`).
extension ImpulseResponseAnalysis {
    // MARK: First arrival

    /// Index of the first sample of either channel whose magnitude reaches −40 dB relative to the
    /// response's largest sample (the first arrival of sound; nil for silence).
    static func firstArrival(left: [Float], right: [Float]) -> Int? {
        var peak: Float = 0
        for i in 0..<left.count { peak = max(peak, abs(left[i]), abs(right[i])) }
        guard peak > 0 else { return nil }
        let threshold = peak * 0.01
        for i in 0..<left.count where abs(left[i]) >= threshold || abs(right[i]) >= threshold {
            return i
        }
        return nil
    }

    // MARK: Echo density (Abel & Huang 2006)

    /// Length (s) of the window over which the echo density counts outliers (Abel & Huang).
    static let echoDensityWindowSeconds = 0.020
    /// Length (s) of the moving average applied to the echo density profile.
    static let echoDensitySmoothingSeconds = 0.050
    /// Step (s) between the points of an echo density profile.
    static let echoDensityStepSeconds = 0.001
    /// Density at and above which a response counts as mixed.
    static let mixedDensity = 0.9

    /// Normalised echo density profile of one channel (J. S. Abel and P. Huang, "A simple, robust
    /// measure of reverberation echo density", AES 121st Convention, 2006): at every
    /// `echoDensityStepSeconds` step t, the fraction of samples in a rectangular 20 ms window
    /// centred on t whose magnitude exceeds the window's standard deviation (RMS; a reverb tail
    /// has zero mean), divided by erfc(1/√2) ≈ 0.3173, the fraction a Gaussian has beyond one
    /// standard deviation: 1 for Gaussian noise, near 0 for sparse echoes. The profile is then
    /// smoothed by a centred 50 ms moving average. Entry k is the density at k steps.
    static func echoDensityProfile(_ x: [Float], sampleRate fs: Double) -> [Double] {
        let half = Int(echoDensityWindowSeconds * fs / 2)
        let step = max(1, Int(echoDensityStepSeconds * fs))
        let points = x.count / step
        let gaussian = erfc(1 / 2.0.squareRoot())
        var raw = [Double](repeating: 0, count: points)
        x.withUnsafeBufferPointer { h in
            for k in 0..<points {
                let c = k * step
                let lo = max(0, c - half), hi = min(h.count, c + half + 1)
                var power = 0.0
                for i in lo..<hi { power += Double(h[i]) * Double(h[i]) }
                let sigma = (power / Double(hi - lo)).squareRoot()
                guard sigma > 0 else { continue }
                var beyond = 0
                for i in lo..<hi where Double(abs(h[i])) > sigma { beyond += 1 }
                raw[k] = Double(beyond) / Double(hi - lo) / gaussian
            }
        }
        let smoothHalf = Int(echoDensitySmoothingSeconds / echoDensityStepSeconds / 2)
        var smoothed = [Double](repeating: 0, count: points)
        for k in 0..<points {
            let lo = max(0, k - smoothHalf), hi = min(points, k + smoothHalf + 1)
            var s = 0.0
            for j in lo..<hi { s += raw[j] }
            smoothed[k] = s / Double(hi - lo)
        }
        return smoothed
    }

    /// Echo density of a stereo response: the mean of the two channels' profiles, starting at
    /// the first arrival (entry k: `echoDensityStepSeconds`·k after it), over at most
    /// `seconds` after it (the mixing time's horizon and the smoothing's reach).
    static func echoDensity(left: [Float], right: [Float], sampleRate fs: Double,
                            seconds: Double = 1.1) -> [Double] {
        guard let start = firstArrival(left: left, right: right) else { return [] }
        let end = min(left.count, start + Int(seconds * fs))
        let l = echoDensityProfile(Array(left[start..<end]), sampleRate: fs)
        let r = echoDensityProfile(Array(right[start..<end]), sampleRate: fs)
        return zip(l, r).map { ($0 + $1) / 2 }
    }

    /// Mixing time (s): from the first arrival until the echo density reaches
    /// `mixedDensity` (0.9) and stays there up to `horizon` seconds after the first arrival
    /// (or the end of the profile). Nil if it never does.
    static func mixingTime(density: [Double], horizon: Double = 1.0) -> Double? {
        let end = min(density.count, Int(horizon / echoDensityStepSeconds))
        guard end > 0, density[end - 1] >= mixedDensity else { return nil }
        var k = end - 1
        while k > 0 && density[k - 1] >= mixedDensity { k -= 1 }
        return Double(k) * echoDensityStepSeconds
    }

    /// The echo density `seconds` after the first arrival.
    static func density(_ density: [Double], at seconds: Double) -> Double {
        let k = Int(seconds / echoDensityStepSeconds + 0.5)
        return k < density.count ? density[k] : 0
    }

    // MARK: Ringing

    /// Spectral peak statistic of a stretch of sound: the power spectra of the channels
    /// (Hann window, zero-padded to a power of two) are summed; each bin in `band` is divided by
    /// the median of the bins within ±`ringingMedianHertz` around it (its local median, which
    /// follows the spectrum's overall shape), and the largest such ratio is returned in dB.
    /// For noise this is the largest of thousands of chi-square draws, about 9–13 dB depending
    /// on the length; a spectral line standing out of the noise adds to it.
    static func spectralPeakOverMedian(_ channels: [[Double]], sampleRate fs: Double,
                                       band: ClosedRange<Double>) -> Double {
        spectralPeak(channels, sampleRate: fs, band: band).decibels
    }

    /// `spectralPeakOverMedian` and the frequency (Hz) of the bin where it is found.
    static func spectralPeak(_ channels: [[Double]], sampleRate fs: Double,
                             band: ClosedRange<Double>) -> (decibels: Double, hertz: Double) {
        let n = channels[0].count
        var size = 1
        while size < n { size <<= 1 }
        var power = [Double](repeating: 0, count: size / 2)
        for x in channels {
            var re = [Double](repeating: 0, count: size), im = re
            for i in 0..<n {
                let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
                re[i] = x[i] * w
            }
            fft(&re, &im)
            for k in 0..<(size / 2) { power[k] += re[k] * re[k] + im[k] * im[k] }
        }
        let binHz = fs / Double(size)
        let lo = max(1, Int(band.lowerBound / binHz)), hi = min(size / 2 - 1, Int(band.upperBound / binHz))
        let half = max(8, Int(ringingMedianHertz / binHz))
        // Local medians on a grid of `stride` bins (each bin uses the nearest grid point).
        let stride = max(1, half / 4)
        var medians = [Double](repeating: 0, count: hi + 1)
        var medianAt = -1, median = 0.0
        for k in lo...hi {
            let g = (k + stride / 2) / stride * stride
            if g != medianAt {
                let a = max(1, g - half), b = min(size / 2 - 1, g + half)
                var window = Array(power[a...b])
                window.sort()
                median = window[window.count / 2]
                medianAt = g
            }
            medians[k] = median
        }
        // Only where the tail has sound: local median within `ringingFloorDecibels` of the
        // strongest local median.
        let floor = (medians[lo...hi].max() ?? 0) * pow(10, -ringingFloorDecibels / 10)
        var best = 0.0, bestBin = 0
        for k in lo...hi where medians[k] > 0 && medians[k] >= floor && power[k] / medians[k] > best {
            best = power[k] / medians[k]
            bestBin = k
        }
        return (best > 0 ? 10 * log10(best) : 0, Double(bestBin) * binHz)
    }

    /// Half-width (Hz) of the neighbourhood whose median a spectral bin is compared with.
    static let ringingMedianHertz = 40.0
    /// Only bins whose local median is within this many dB of the strongest local median are
    /// searched for ringing: where the late tail has sound. Further down (the top octaves of a
    /// damped tail, 30–100 dB below its body) the stretch holds only the first milliseconds of
    /// sound, whose spectrum says nothing about a mode outlasting its neighbours.
    static let ringingFloorDecibels = 20.0
    /// The band (Hz) searched for ringing.
    static let ringingBand = 50.0...10_000.0
    /// Block length (s) of the RMS envelope given to the noise reference.
    static let envelopeBlockSeconds = 0.005

    /// The late tail of a stereo response: the stretch from where the energy decay curve
    /// (both channels) passes −10 dB to where it passes −40 dB (or the end), at most 2¹⁶ samples.
    static func lateTail(left: [Float], right: [Float]) -> Range<Int> {
        let edc = energyDecayCurve(left: left, right: right)
        let a = edc.firstIndex { $0 <= -10 } ?? 0
        let b = edc.firstIndex { $0 <= -40 } ?? left.count
        return a..<min(max(b, a + 1), a + 65_536)
    }

    /// Ringing of a stereo response's late tail (`lateTail`): its spectral peak over the local
    /// median (`spectralPeakOverMedian`) and the same statistic for Gaussian noise given the
    /// tail's own RMS envelope (per channel, `envelopeBlockSeconds` blocks), averaged over
    /// `references` noise draws, and the frequency of the tail's peak; over `band` (Hz,
    /// `ringingBand` unless told). A tail that is noise-like (no mode outlasting its neighbours)
    /// has `tail − reference` near 0 dB; a ringing mode makes it positive. Both in dB.
    static func ringing(left: [Float], right: [Float], sampleRate fs: Double, references: Int = 6,
                        band: ClosedRange<Double> = ringingBand) -> (tail: Double, reference: Double, hertz: Double) {
        let r = lateTail(left: left, right: right)
        let channels = [left, right].map { c in r.map { Double(c[$0]) } }
        let (tail, hertz) = spectralPeak(channels, sampleRate: fs, band: band)
        let block = max(1, Int(envelopeBlockSeconds * fs))
        let envelopes: [[Double]] = channels.map { x in
            var e = [Double](repeating: 0, count: x.count)
            var i = 0
            while i < x.count {
                let j = min(x.count, i + block)
                var p = 0.0
                for k in i..<j { p += x[k] * x[k] }
                let rms = (p / Double(j - i)).squareRoot()
                for k in i..<j { e[k] = rms }
                i = j
            }
            return e
        }
        var reference = 0.0
        for s in 0..<references {
            var seed = UInt64(0x9E37_79B9_7F4A_7C15) &* UInt64(s + 1)
            let noisy = envelopes.map { e in e.map { $0 * gaussian(&seed) } }
            reference += spectralPeakOverMedian(noisy, sampleRate: fs, band: band)
        }
        return (tail, reference / Double(references), hertz)
    }

    /// A standard normal draw (Box–Muller on a 64-bit LCG; deterministic from `seed`).
    static func gaussian(_ seed: inout UInt64) -> Double {
        func uniform() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Double(seed >> 11) + 0.5) / 9_007_199_254_740_992
        }
        let u = uniform(), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }

    /// In-place radix-2 complex FFT (count a power of two). On raw buffers: it runs in debug
    /// builds, where array subscripts cost ~10× more.
    static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        re.withUnsafeMutableBufferPointer { rp in
            im.withUnsafeMutableBufferPointer { ip in
                let r = rp.baseAddress!, i = ip.baseAddress!
                var j = 0
                for k in 1..<n {
                    var bit = n >> 1
                    while j & bit != 0 { j ^= bit; bit >>= 1 }
                    j |= bit
                    if k < j { swap(&r[k], &r[j]); swap(&i[k], &i[j]) }
                }
                // Twiddles e^(−2πik/n) for k < n/2, from which every stage takes every
                // (n/len)-th.
                let half = n / 2
                let wr = UnsafeMutablePointer<Double>.allocate(capacity: max(half, 1))
                let wi = UnsafeMutablePointer<Double>.allocate(capacity: max(half, 1))
                defer { wr.deallocate(); wi.deallocate() }
                for k in 0..<half {
                    wr[k] = cos(-2 * Double.pi * Double(k) / Double(n))
                    wi[k] = sin(-2 * Double.pi * Double(k) / Double(n))
                }
                var len = 2
                while len <= n {
                    let step = n / len, h = len / 2
                    var start = 0
                    while start < n {
                        for k in 0..<h {
                            let a = start + k, b = a + h
                            let cr = wr[k * step], ci = wi[k * step]
                            let tr = r[b] * cr - i[b] * ci, ti = r[b] * ci + i[b] * cr
                            r[b] = r[a] - tr; i[b] = i[a] - ti
                            r[a] += tr; i[a] += ti
                        }
                        start += len
                    }
                    len <<= 1
                }
            }
        }
    }

    // MARK: Octave-band decay

    /// T20 (s) in the octave bands 125 Hz … 8 kHz of a stereo response: each channel through a
    /// band-pass (two RBJ constant-peak biquads in series, centre f, Q = √2: about one octave),
    /// then the Schroeder T20 of the two together. Nil where the band's curve does not reach
    /// −25 dB.
    static func octaveDecayTimes(left: [Float], right: [Float], sampleRate fs: Double)
        -> [(hertz: Double, seconds: Double?)] {
        [125.0, 250, 500, 1000, 2000, 4000, 8000].map { f in
            let l = bandPass(left, centre: f, sampleRate: fs)
            let r = bandPass(right, centre: f, sampleRate: fs)
            return (f, reverberationTime(left: l, right: r, sampleRate: fs))
        }
    }

    /// Two RBJ band-pass biquads (0 dB peak, Q = √2) in series at `centre` Hz.
    static func bandPass(_ x: [Float], centre: Double, sampleRate fs: Double) -> [Float] {
        let w = 2 * Double.pi * centre / fs
        let alpha = sin(w) / (2 * 2.0.squareRoot())
        let a0 = 1 + alpha
        let b0 = alpha / a0, b2 = -alpha / a0
        let a1 = -2 * cos(w) / a0, a2 = (1 - alpha) / a0
        var y = x.map(Double.init)
        for _ in 0..<2 {
            var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
            for i in 0..<y.count {
                let v = b0 * y[i] + b2 * x2 - a1 * y1 - a2 * y2
                x2 = x1; x1 = y[i]
                y2 = y1; y1 = v
                y[i] = v
            }
        }
        return y.map(Float.init)
    }

    // MARK: Width, DC, clarity, loudness

    /// Late left/right correlation: the normalised cross-correlation at lag 0 from
    /// `after` seconds past the first arrival to the end (1: identical, 0: uncorrelated).
    static func lateCorrelation(left: [Float], right: [Float], sampleRate fs: Double,
                                after: Double = 0.1) -> Double {
        let start = (firstArrival(left: left, right: right) ?? 0) + Int(after * fs)
        guard start < left.count else { return 0 }
        return normalizedCrossCorrelation(left, right, range: start..<left.count)
    }

    /// DC gain (dB) of each channel: 20·log10 |Σ h[n]|, the response to a constant input once
    /// settled (the response must have decayed: its remaining sum is what this misses).
    static func dcGain(_ x: [Float]) -> Double {
        let s = x.reduce(0.0) { $0 + Double($1) }
        return 20 * log10(max(abs(s), 1e-30))
    }

    /// Clarity C80 (dB, ISO 3382-1): energy in the first 80 ms after the excitation (sample
    /// `excitation`, the time the dry sound arrives) over the energy after it, both channels.
    static func clarity80(left: [Float], right: [Float], sampleRate fs: Double,
                          excitation: Int = 0) -> Double {
        let split = min(left.count, excitation + Int(0.080 * fs))
        var early = 0.0, late = 0.0
        for i in excitation..<left.count {
            let e = Double(left[i]) * Double(left[i]) + Double(right[i]) * Double(right[i])
            if i < split { early += e } else { late += e }
        }
        return 10 * log10(early / late)
    }

    /// Energy of both channels (Σ L² + R²) in dB.
    static func loudness(left: [Float], right: [Float]) -> Double {
        10 * log10(energy(left) + energy(right))
    }
}
