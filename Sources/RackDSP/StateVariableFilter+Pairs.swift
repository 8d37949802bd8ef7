/// The steady path of `StateVariableFilter`: while (g, k) hold, two samples run as one linear step.
/// The recursion is bound by the latency of its loop-carried chain (each sample waits on the
/// states the previous one left), not by its number of operations: as one step per two samples
/// the loop waits on that chain half as often.
extension StateVariableFilter {
    /// Two samples at steady (g, k) as one linear map. `tick` run on linear forms over
    /// (s1, s2, x0, x1) — s1 = (1, 0, 0, 0), …, x1 = (0, 0, 0, 1) — gives the rows of the states
    /// after the first sample (`m1`, `m2`) and after both (`n1`, `n2`: s'' = A²·s + A·b·x0 + b·x1).
    /// Each output comes from the states either side of its sample: yBP = (s1 + s1')/2,
    /// yLP = (s2 + s2')/2, yHP = x − k·yBP − yLP. The same filter, rounded differently; the rows
    /// are worked out in double precision, once per call.
    struct PairStep {
        /// Rows of the states after the first sample and after both.
        let m1: Row, m2: Row, n1: Row, n2: Row
        /// The damping k, for the high-pass output.
        let k: Float

        /// A row's coefficients of s1, s2, x0 and x1 (scalars: each multiplies both channels).
        struct Row {
            let s1: Float, s2: Float, x0: Float, x1: Float

            /// The row · (s1, s2, x0, x1) on both channels, the states' terms added last: the
            /// loop waits on a multiply and two adds per pair. - Realtime: safe
            @_noLocks @inline(__always)
            func callAsFunction(_ s1: SIMD2<Float>, _ s2: SIMD2<Float>, _ x0: SIMD2<Float>, _ x1: SIMD2<Float>) -> SIMD2<Float> {
                ((self.x0 * x0 + self.x1 * x1) + self.s2 * s2) + self.s1 * s1
            }

            /// The row · (s1, s2, x0): a state after the first sample. - Realtime: safe
            @_noLocks @inline(__always)
            func callAsFunction(_ s1: SIMD2<Float>, _ s2: SIMD2<Float>, _ x0: SIMD2<Float>) -> SIMD2<Float> {
                (self.x0 * x0 + self.s2 * s2) + self.s1 * s1
            }
        }

        /// - Realtime: safe
        @_noLocks @inline(__always)
        init(_ gk: SIMD2<Float>) {
            var s1 = SIMD4<Double>(1, 0, 0, 0), s2 = SIMD4<Double>(0, 1, 0, 0)
            func row(_ r: SIMD4<Double>) -> Row { Row(s1: Float(r.x), s2: Float(r.y), x0: Float(r.z), x1: Float(r.w)) }
            StateVariableFilter.tick(forms: SIMD4(0, 0, 1, 0), &s1, &s2, g: Double(gk.x), k: Double(gk.y))
            (m1, m2) = (row(s1), row(s2))
            StateVariableFilter.tick(forms: SIMD4(0, 0, 0, 1), &s1, &s2, g: Double(gk.x), k: Double(gk.y))
            (n1, n2, k) = (row(s1), row(s2), gk.y)
        }
    }

    /// The first sample of a pair a call ended on (its output went out; the states are still
    /// those before it) and the (g, k) it runs at. A split of the stream into calls thus never
    /// changes which samples pair up.
    struct HalfPair {
        var input: SIMD2<Float>, gk: SIMD2<Float>
    }

    /// Filters samples `start..<frames` at steady (g, k) in pairs; a last odd sample gives its
    /// output now and is left in `half`. - Realtime: safe
    @_noLocks @inline(__always)
    mutating func processSteady(_ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>,
                                from start: Int, frames: Int, gk: SIMD2<Float>) {
        let step = PairStep(gk)
        var a = s1, b = s2, i = start
        while frames - i >= 2 {
            let (y0, y1) = pair(step, SIMD2(left[i], right[i]), SIMD2(left[i &+ 1], right[i &+ 1]), &a, &b)
            (left[i], right[i], left[i &+ 1], right[i &+ 1]) = (y0.x, y0.y, y1.x, y1.y)
            i &+= 2
        }
        if i < frames {
            // The pair's first output does not depend on its second input: the same samples.
            var a1 = a, b1 = b
            let x0 = SIMD2(left[i], right[i]), (y0, _) = pair(step, x0, .zero, &a1, &b1)
            (left[i], right[i], half) = (y0.x, y0.y, HalfPair(input: x0, gk: gk))
        }
        (s1, s2) = (a, b)
    }

    /// One pair of `mode`'s outputs, the states advanced by two (flushed). - Realtime: safe
    @_noLocks @inline(__always)
    func pair(_ step: PairStep, _ x0: SIMD2<Float>, _ x1: SIMD2<Float>,
              _ a: inout SIMD2<Float>, _ b: inout SIMD2<Float>) -> (SIMD2<Float>, SIMD2<Float>) {
        let n1 = step.n1(a, b, x0, x1), n2 = step.n2(a, b, x0, x1)
        let y: (SIMD2<Float>, SIMD2<Float>)
        switch mode {     // only the first-sample states the output needs (the loop is unswitched)
        case .lowPass:
            let m2 = step.m2(a, b, x0)
            y = (0.5 * (b + m2), 0.5 * (m2 + n2))
        case .bandPass:
            let m1 = step.m1(a, b, x0)
            y = (0.5 * (a + m1), 0.5 * (m1 + n1))
        case .highPass:
            let m1 = step.m1(a, b, x0), m2 = step.m2(a, b, x0), k = 0.5 * step.k
            y = ((x0 - k * (a + m1)) - 0.5 * (b + m2), (x1 - k * (m1 + n1)) - 0.5 * (m2 + n2))
        }
        (a, b) = (Self.flushed(n1), Self.flushed(n2))
        return y
    }

    /// The pair the last call left half-done: finished with this call's first sample when this
    /// call goes on at the same steady (g, k) (returns 1), else its first sample takes its own
    /// step (`tick`; returns 0). - Realtime: safe
    @_noLocks @inline(__always)
    mutating func finishHalf(_ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>,
                             frames: Int, steady gk: SIMD2<Float>?) -> Int {
        guard let h = half else { return 0 }
        half = nil
        if let gk, gk == h.gk, frames > 0 {
            var a = s1, b = s2
            let (_, y1) = pair(PairStep(gk), h.input, SIMD2(left[0], right[0]), &a, &b)
            (s1, s2, left[0], right[0]) = (a, b, y1.x, y1.y)
            return 1
        }
        step(h.input, gk: h.gk)
        return 0
    }
}
