/// A core's delay memories for one group: the rings (lines, loop diffusers, input diffusers;
/// each ring followed by an 8-float mirror of its start), their strides and masks, and where
/// this group writes. A value of pointers, so the stages that read and write the rings are
/// functions of it and not of the core.
struct ReverbRings {
    let lines: UnsafeMutablePointer<Float>
    let diffusers: UnsafeMutablePointer<Float>
    let inputDiffusers: UnsafeMutablePointer<Float>
    let lineStride: Int
    let lineMask: Int
    let diffuserStride: Int
    let diffuserMask: Int
    /// Write position of this group in the line rings (a multiple of 8), and its low bits in
    /// the diffuser rings.
    let lineWrite: Int
    let diffuserWrite: Int

    @_noLocks @inline(__always)
    init(lines: UnsafeMutablePointer<Float>, diffusers: UnsafeMutablePointer<Float>,
         inputDiffusers: UnsafeMutablePointer<Float>, lineStride: Int, lineMask: Int,
         diffuserStride: Int, diffuserMask: Int, lineWrite: Int) {
        (self.lines, self.diffusers, self.inputDiffusers) = (lines, diffusers, inputDiffusers)
        (self.lineStride, self.lineMask, self.diffuserStride, self.diffuserMask) = (lineStride, lineMask, diffuserStride, diffuserMask)
        self.lineWrite = lineWrite
        diffuserWrite = lineWrite & diffuserMask
    }

    /// Line `line`'s 8 samples `delay` behind this group's write, w[n−D] (D ≥ 8: written before
    /// this group).
    @_noLocks @inline(__always)
    func lineRead(_ line: Int, delay: Int) -> SIMD8<Float> {
        ReverbCore.load(lines + (line &* lineStride &+ ((lineWrite &- delay) & lineMask)))
    }

    /// A read of line `line` at `delay` when the line's first `secondDelay` samples are its
    /// second diffuser (coefficient `g`, ≠ 0): that allpass's output, taken D − M later,
    /// w[n−D] − g·w[n−D+M] (`ReverbCore`). At g = 0 the reads are `lineRead`'s (one load).
    @_noLocks @inline(__always)
    func secondDiffuserRead(_ line: Int, delay: Int, secondDelay: Int, g: SIMD8<Float>) -> SIMD8<Float> {
        lineRead(line, delay: delay) - g * lineRead(line, delay: delay &- secondDelay)
    }

    /// Input diffusion: four lossless allpasses in series per channel (rings 0…3: left,
    /// 4…7: right), each over the whole group (every delay ≥ 8).
    @_noLocks @inline(__always)
    func diffuseInput(_ left: SIMD8<Float>, _ right: SIMD8<Float>,
                      _ coefficients: ReverbCoefficients) -> (SIMD8<Float>, SIMD8<Float>) {
        var inputLeft = left, inputRight = right
        let stride = diffuserStride, mask = diffuserMask, write = diffuserWrite
        let inputDiffuser = Diffuser(coefficient: SIMD8(repeating: coefficients.inputDiffusion))
        let inputDelay = coefficients.inputDiffuserDelay
        for stage in 0..<4 {
            let ringL = inputDiffusers + stage &* stride, ringR = inputDiffusers + (stage &+ 4) &* stride
            let delayedLeft = ReverbCore.load(ringL + ((write &- Int(inputDelay[stage])) & mask))
            let delayedRight = ReverbCore.load(ringR + ((write &- Int(inputDelay[stage &+ 4])) & mask))
            let (ringInLeft, outLeft) = inputDiffuser.process(inputLeft, delayed: delayedLeft)
            let (ringInRight, outRight) = inputDiffuser.process(inputRight, delayed: delayedRight)
            ReverbCore.store(ringInLeft, ringL + write)
            ReverbCore.store(ringInRight, ringR + write)
            inputLeft = outLeft
            inputRight = outRight
        }
        return (inputLeft, inputRight)
    }

    /// Injection and the loop diffusers: L → lines 0 2 4 6 as + − + −, R → lines 1 3 5 7 as
    /// − + − + (the Hadamard rows (h2 + h3)/2 and (h3 − h2)/2; multiplying by ±1 and adding is
    /// exactly adding or subtracting); each line through its diffuser, with the writes (with a
    /// `secondDiffusion` g ≠ 0 the line ring takes the second allpass's w = v + g·w[n−M]).
    /// Returns what entered each line (v: what the output taps read).
    @_noLocks @inline(__always)
    func writeLines(feedback: Block8, inputLeft: SIMD8<Float>, inputRight: SIMD8<Float>,
                    secondDiffusion g: SIMD8<Float>, absorptionFrom: SIMD8<Float>?,
                    _ coefficients: ReverbCoefficients) -> Block8 {
        let injection = Block8(inputLeft, -inputRight, -inputLeft, inputRight, inputLeft, -inputRight, -inputLeft, inputRight)
        let diffusion = SIMD8<Float>(repeating: coefficients.diffusion), absorption = coefficients.diffuserAbsorption
        let diffuserDelay = coefficients.diffuserDelay
        let stride = diffuserStride, mask = diffuserMask, write = diffuserWrite, ringStride = lineStride
        let diffuserRingWrite = diffusers + write, lineInput = lines + lineWrite
        // Line i's feed through its diffuser (the diffuser's ring written): v.
        @inline(__always) func diffused(_ i: Int) -> SIMD8<Float> {
            let delayed = ReverbCore.load(diffusers + (i &* stride &+ ((write &- Int(diffuserDelay[i])) & mask)))
            var a = SIMD8<Float>(repeating: absorption[i])
            if let from = absorptionFrom {
                a = SIMD8(repeating: from[i]) + SIMD8(repeating: absorption[i] - from[i]) * ReverbAbsorptionGlide.fractions
            }
            let diffuser = Diffuser(coefficient: diffusion, absorption: a)
            let (ring, output) = diffuser.process(feedback[i] + injection[i], delayed: delayed)
            ReverbCore.store(ring, diffuserRingWrite + i &* stride)
            return output
        }
        if all(g .== 0) {
            return Block8 { i in
                let output = diffused(i)
                ReverbCore.store(output, lineInput + i &* ringStride)
                return output
            }
        }
        // The second diffusers' recursion: w = v + g·w[n−M] into each line ring (M ≥ 8, so
        // w[n−M] is older than the group).
        let secondDelay = coefficients.secondDiffuserDelay
        return Block8 { i in
            let output = diffused(i)
            ReverbCore.store(output + g * lineRead(i, delay: Int(secondDelay[i])), lineInput + i &* ringStride)
            return output
        }
    }

    /// The late outputs: per line, L = (+ − + − − + − +)·v, R = (+ + − − − − + +)·v (rows h5
    /// and h6), accumulated in Hadamard pairs (lines 0 4 1 5 2 6 3 7); then the second taps,
    /// part-way along each line (older than the group: every tap ≥ 8), with the patterns of
    /// rows h1 (left) and h7 (right), also orthogonal to the injection; scaled to the room's
    /// loudness.
    @_noLocks @inline(__always)
    func outputTaps(_ lineInputs: Block8, secondDiffusion g: SIMD8<Float>,
                    _ coefficients: ReverbCoefficients) -> (SIMD8<Float>, SIMD8<Float>) {
        let leftTap = SIMD8<Float>(1, -1, 1, -1, -1, 1, -1, 1)
        let rightTap = SIMD8<Float>(1, 1, -1, -1, -1, -1, 1, 1)
        var left = lineInputs.v0, right = lineInputs.v0
        for step in 1..<8 {
            let i = (step &>> 1) | ((step & 1) &<< 2)
            left += leftTap[i] * lineInputs[i]
            right += rightTap[i] * lineInputs[i]
        }
        let midTapDelay = coefficients.midTapDelay
        let midLeftTap = SIMD8<Float>(-1, 1, 1, -1, 1, -1, -1, 1)
        let midRightTap = SIMD8<Float>(1, 1, 1, 1, -1, -1, -1, -1)
        if all(g .== 0) {
            for i in 0..<8 {
                let midTapped = lineRead(i, delay: Int(midTapDelay[i]))
                left += midLeftTap[i] * midTapped
                right += midRightTap[i] * midTapped
            }
        } else {
            let secondDelay = coefficients.secondDiffuserDelay
            for i in 0..<8 {
                let midTapped = secondDiffuserRead(i, delay: Int(midTapDelay[i]), secondDelay: Int(secondDelay[i]), g: g)
                left += midLeftTap[i] * midTapped
                right += midRightTap[i] * midTapped
            }
        }
        return (left * coefficients.outputScale, right * coefficients.outputScale)
    }

    /// The rings' first 8 floats are mirrored after their end, so that 8 consecutive samples
    /// are always contiguous: refresh the mirrors when this group wrote the first 8 (no read of
    /// this group touches them: every delay is ≥ 8).
    @_noLocks @inline(__always)
    func refreshMirrors() {
        if lineWrite == 0 {
            for i in 0..<8 {
                let line = lines + i &* lineStride
                ReverbCore.store(ReverbCore.load(line), line + (lineMask &+ 1))
            }
        }
        if diffuserWrite == 0 {
            for i in 0..<8 {
                let ring = diffusers + i &* diffuserStride
                ReverbCore.store(ReverbCore.load(ring), ring + (diffuserMask &+ 1))
                let input = inputDiffusers + i &* diffuserStride
                ReverbCore.store(ReverbCore.load(input), input + (diffuserMask &+ 1))
            }
        }
    }
}
