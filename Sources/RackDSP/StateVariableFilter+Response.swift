/// The filter's magnitude response, for the plot and the tests (not realtime).
extension StateVariableFilter {
    /// |H| in dB of `mode` at `frequencyHz` for a cutoff in Hz and a resonance in dB, at this
    /// filter's rate and cutoff limit: the closed-form transfer function of the TPT SVF. Each
    /// trapezoidal integrator is G(z) = g·(1 + z⁻¹)/(1 − z⁻¹); solving the loop as `tick` does
    /// gives H_HP = 1/(1 + k·G + G²), H_BP = G·H_HP and H_LP = G²·H_HP, evaluated here at
    /// z = e^(j·2π·f/fs) (complex numbers as (re, im)).
    public func magnitudeDecibels(frequencyHz: Double, cutoffHz: Double, resonanceDecibels: Double) -> Double {
        let gk = coefficients(cutoffHz: cutoffHz, resonanceDecibels: resonanceDecibels)
        let z = RackMath.sincos(2 * RackMath.pi * frequencyHz / sampleRate)     // z⁻¹ = cos − j·sin
        let n = SIMD2(1 + z.cos, -z.sin), d = SIMD2(1 - z.cos, z.sin)          // 1 + z⁻¹, 1 − z⁻¹
        let G = gk.x * SIMD2(n.x * d.x + n.y * d.y, n.y * d.x - n.x * d.y) / (d.x * d.x + d.y * d.y)
        let G2 = SIMD2(G.x * G.x - G.y * G.y, 2 * G.x * G.y)
        let D = SIMD2(1, 0) + gk.y * G + G2
        let numerator = switch mode {
        case .lowPass: G2
        case .bandPass: G
        case .highPass: SIMD2<Double>(1, 0)
        }
        let power = (numerator * numerator).sum() / (D * D).sum()
        return 10 * RackMath.log2(power) / RackMath.log2Of10
    }
}
