/// Eight per-line vectors of 8 samples (or, transposed, eight per-sample vectors of 8 lines):
/// the reverb's group of 8 samples × 8 lines, and its 8×8 transpose between the two layouts.
struct Block8 {
    var v0, v1, v2, v3, v4, v5, v6, v7: SIMD8<Float>

    @_noLocks @inline(__always)
    init(_ v0: SIMD8<Float>, _ v1: SIMD8<Float>, _ v2: SIMD8<Float>, _ v3: SIMD8<Float>,
         _ v4: SIMD8<Float>, _ v5: SIMD8<Float>, _ v6: SIMD8<Float>, _ v7: SIMD8<Float>) {
        (self.v0, self.v1, self.v2, self.v3) = (v0, v1, v2, v3)
        (self.v4, self.v5, self.v6, self.v7) = (v4, v5, v6, v7)
    }

    /// The block whose vector i is `make(i)`, made in the order i = 0, 1, …, 7 (one call per
    /// vector, written out: the compiler sees eight straight-line calls with constant `i`).
    @_noLocks @inline(__always)
    init(_ make: (Int) -> SIMD8<Float>) {
        self.init(make(0), make(1), make(2), make(3), make(4), make(5), make(6), make(7))
    }

    /// Vector `i` (0…7); with a constant `i` (an unrolled loop, `init(_:)`) the switch folds away.
    @inline(__always)
    subscript(i: Int) -> SIMD8<Float> {
        @_noLocks get {
            switch i {
            case 0: v0
            case 1: v1
            case 2: v2
            case 3: v3
            case 4: v4
            case 5: v5
            case 6: v6
            default: v7
            }
        }
    }

    /// 4×4 transpose of rows a…d: two rounds of even/odd lane selection (8 shuffles).
    @_noLocks @inline(__always)
    static func transpose4(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>, _ d: SIMD4<Float>)
        -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        let ab = SIMD8(lowHalf: a, highHalf: b)
        let cd = SIMD8(lowHalf: c, highHalf: d)
        let e = SIMD8(lowHalf: ab.evenHalf, highHalf: cd.evenHalf)   // a0 a2 b0 b2 c0 c2 d0 d2
        let o = SIMD8(lowHalf: ab.oddHalf, highHalf: cd.oddHalf)     // a1 a3 b1 b3 c1 c3 d1 d3
        return (e.evenHalf, o.evenHalf, e.oddHalf, o.oddHalf)
    }

    /// 8×8 transpose, as four 4×4 blocks.
    @_noLocks @inline(__always)
    func transposed() -> Block8 {
        let (a0, a1, a2, a3) = Self.transpose4(v0.lowHalf, v1.lowHalf, v2.lowHalf, v3.lowHalf)
        let (b0, b1, b2, b3) = Self.transpose4(v4.lowHalf, v5.lowHalf, v6.lowHalf, v7.lowHalf)
        let (c0, c1, c2, c3) = Self.transpose4(v0.highHalf, v1.highHalf, v2.highHalf, v3.highHalf)
        let (d0, d1, d2, d3) = Self.transpose4(v4.highHalf, v5.highHalf, v6.highHalf, v7.highHalf)
        return Block8(SIMD8(lowHalf: a0, highHalf: b0), SIMD8(lowHalf: a1, highHalf: b1),
                      SIMD8(lowHalf: a2, highHalf: b2), SIMD8(lowHalf: a3, highHalf: b3),
                      SIMD8(lowHalf: c0, highHalf: d0), SIMD8(lowHalf: c1, highHalf: d1),
                      SIMD8(lowHalf: c2, highHalf: d2), SIMD8(lowHalf: c3, highHalf: d3))
    }
}
