/// The decay correction of every room: how a room's mid-band T60 must follow a shaped `decay`
/// so that the broadband T30 of its impulse response (Schroeder, −5…−35 dB, at 100 % wet) is the
/// set decay.
///
/// Why a room needs more than its one `calibration`: that ratio (mid-band over broadband T60)
/// is measured at the room's own decay, but the broadband decay is not proportional to the
/// mid-band one. What decides is the loss per pass round a loop, 60·τ/T60 dB for a loop of
/// delay τ (the loops are 0.06…0.29 s long on average, smallRoom to cathedral):
/// - Much loss per pass (decays under ~10 loop delays): the HF damping one-pole has to reach a
///   loss of twice the mid band's at `halfDecayHz` in one pass, so its corner falls towards the
///   mid band (J. O. Smith's design, |H| = g_mid at the half-decay point: with g_mid = 0.1 the
///   pole is ~0.94 for a 5 kHz half-decay point, a −3 dB corner near 460 Hz) and takes the mid
///   band down with it; the in-loop diffusers' direct path (−g·x) meanwhile skips their
///   absorption. The first pass
///   and the early pattern are a larger part of a short response. Measured: largeHall at
///   0.5 s gave T30 0.39 s, cathedral 1 s → 0.77 s, mediumChamber 0.3 s → 0.26 s.
/// - Little loss per pass (long decays): the one-pole is the textbook f² loss and the decay
///   curve is the room's at its own decay, only without the short-decay shortening that its
///   own `calibration` absorbed: T30 ran long, smallRoom +11 % at 1 s and +16 % at 10 s,
///   the halls +6…8 % at 10 s.
/// - Shortest decays: a network cannot decay faster than its fixed structure lets it: the four
///   lossless input diffusers ring for about 21 of their delays, and a loop as long as the
///   decay passes the input once. Below a room's own network's floor (listed in the rows; about
///   1.5 loop delays, ~0.15 s in smallRoom to ~0.66 s in cathedral) T30 stays longer than the
///   setting; but every room larger than smallRoom runs its short form there
///   (`ReverbShortForm.swift`, its own rows below), which reaches 0.1…0.15 s.
///
/// So each room has 16 correction factors on the grid of `ReverbTuning.decayCorrectionNode`
/// (0.1 … 30 s, log-spaced), and a shaped decay's mid-band T60 is
/// `decay · calibration · c(decay)/c(own decay)` (`ReverbCoefficients.shape`), c interpolated in
/// log decay: at the room's own decay the factor is exactly 1, so a room at its own values is
/// its design byte for byte, and everywhere else T30/decay is what it is at the room's own
/// decay (1.01…1.04, the `calibration` criterion).
///
/// Provenance: measured at 48 kHz with `ImpulseResponseAnalysis` (a scratch harness, as for
/// `calibration`): for node k, set `decay` to d_k·f (f from 1), render the impulse response,
/// f ← f·d_k/T30, until T30 is within 0.3 % of d_k. Nodes below a room's floor (no f reaches
/// d_k within 2 %) hold the first node that does. Checked at 44.1 and 96 kHz by
/// `ReverbShapeTests.testDecaySetsTheBroadbandT30`. Re-measure after changing any constant
/// of the room or of `ReverbTuning`.
extension RoomDefinition {
    /// The 16 decay-correction nodes of `room` (see above).
    static func decayCorrection(_ room: Room) -> SIMD16<Double> {
        let row = decayCorrectionTable[room.rawValue]
        var nodes = SIMD16<Double>(repeating: 1)
        for k in 0..<min(row.count, nodes.scalarCount) { nodes[k] = row[k] }
        return nodes
    }

    /// By `Room` order; the lowest decay each room reaches within ±10 % (its floor) in the
    /// comment above its row.
    static let decayCorrectionTable: [[Double]] = [
        // smallRoom: reaches its decay from 0.15 s
        [1.100, 1.100, 1.093, 1.007, 0.955, 0.927, 0.906, 0.892, 0.877, 0.874, 0.868, 0.863, 0.861, 0.860, 0.859, 0.858],
        // mediumRoom: reaches its decay from 0.21 s
        [1.165, 1.165, 1.165, 1.135, 1.031, 0.979, 0.940, 0.929, 0.918, 0.899, 0.890, 0.885, 0.881, 0.879, 0.877, 0.876],
        // largeRoom: reaches its decay from 0.31 s
        [1.183, 1.183, 1.183, 1.183, 1.128, 1.035, 0.984, 0.949, 0.929, 0.912, 0.900, 0.894, 0.889, 0.885, 0.882, 0.881],
        // largeRoom2: reaches its decay from 0.31 s
        [1.191, 1.191, 1.191, 1.191, 1.158, 1.061, 0.997, 0.953, 0.934, 0.912, 0.895, 0.888, 0.881, 0.877, 0.872, 0.871],
        // mediumChamber: reaches its decay from 0.21 s
        [1.122, 1.122, 1.122, 1.154, 1.073, 1.019, 0.992, 0.982, 0.971, 0.958, 0.951, 0.949, 0.947, 0.944, 0.943, 0.942],
        // largeChamber: reaches its decay from 0.31 s
        [1.171, 1.171, 1.171, 1.171, 1.158, 1.068, 1.021, 0.987, 0.981, 0.964, 0.953, 0.947, 0.943, 0.939, 0.937, 0.936],
        // plate: reaches its decay from 0.31 s
        [1.103, 1.103, 1.103, 1.103, 1.041, 1.010, 1.003, 0.994, 0.977, 0.973, 0.971, 0.967, 0.965, 0.964, 0.963, 0.962],
        // mediumHall: reaches its decay from 0.31 s
        [1.348, 1.348, 1.348, 1.348, 1.233, 1.107, 1.019, 0.983, 0.972, 0.958, 0.943, 0.934, 0.928, 0.925, 0.923, 0.921],
        // mediumHall2: reaches its decay from 0.45 s (at 0.31 s a second, lower fit exists: not used)
        [1.223, 1.223, 1.223, 1.223, 1.223, 1.129, 1.023, 0.994, 0.965, 0.952, 0.936, 0.927, 0.918, 0.916, 0.914, 0.911],
        // mediumHall3: reaches its decay from 0.45 s
        [1.308, 1.308, 1.308, 1.308, 1.308, 1.177, 1.062, 1.006, 0.970, 0.955, 0.937, 0.924, 0.915, 0.911, 0.907, 0.905],
        // largeHall: reaches its decay from 0.45 s
        [1.279, 1.279, 1.279, 1.279, 1.279, 1.188, 1.058, 1.013, 0.979, 0.964, 0.949, 0.932, 0.927, 0.922, 0.918, 0.916],
        // largeHall2: reaches its decay from 0.45 s
        [1.276, 1.276, 1.276, 1.276, 1.276, 1.225, 1.093, 1.028, 0.986, 0.968, 0.951, 0.932, 0.928, 0.923, 0.919, 0.915],
        // cathedral: reaches its decay from 0.66 s
        [1.338, 1.338, 1.338, 1.338, 1.338, 1.338, 1.236, 1.103, 1.034, 0.993, 0.971, 0.949, 0.931, 0.926, 0.918, 0.914],
    ]

    /// The 16 decay-correction nodes of `room`'s short form (`ReverbShortForm.swift`): its
    /// mid-band T60 for a shaped decay is `decay · calibration · c(decay)` (no own-decay
    /// factor: a room's own decay runs its own network). Measured as the rows above (48 kHz,
    /// T30 within 0.3 % of the node, the factor found by bisection), on the short form's
    /// network alone (no switching), over the nodes it runs (up to the first node beyond
    /// `ReverbTuning.shortFormHysteresis` times its switching decay); nodes beyond hold the
    /// last measured one. Every short form reaches 0.1 s. All 1 for a room without one.
    static func shortFormDecayCorrection(_ room: Room) -> SIMD16<Double> {
        let row = shortFormDecayCorrectionTable[room.rawValue]
        var nodes = SIMD16<Double>(repeating: row.last ?? 1)
        for k in 0..<min(row.count, nodes.scalarCount) { nodes[k] = row[k] }
        return nodes
    }

    /// By `Room` order (smallRoom has no short form: an empty row).
    static let shortFormDecayCorrectionTable: [[Double]] = [
        [],
        // mediumRoom
        [1.356, 1.223, 1.145, 1.030, 0.970],
        // largeRoom
        [1.395, 1.249, 1.168, 1.046, 0.982],
        // largeRoom2
        [1.427, 1.283, 1.195, 1.066, 0.994, 0.955],
        // mediumChamber
        [1.398, 1.243, 1.154, 1.058, 1.014],
        // largeChamber
        [1.421, 1.257, 1.168, 1.067, 1.018, 0.994],
        // plate
        [1.369, 1.131, 1.058, 1.014, 1.006],
        // mediumHall
        [1.432, 1.233, 1.126, 1.009, 0.974, 0.970, 0.951],
        // mediumHall2
        [1.430, 1.236, 1.131, 1.009, 0.970, 0.962, 0.948],
        // mediumHall3
        [1.432, 1.248, 1.135, 1.013, 0.966, 0.958, 0.941],
        // largeHall
        [1.449, 1.263, 1.159, 1.025, 0.978, 0.970, 0.951],
        // largeHall2
        [1.472, 1.289, 1.187, 1.045, 0.986, 0.978, 0.955],
        // cathedral
        [1.526, 1.351, 1.253, 1.096, 1.013, 0.986, 0.962, 0.955],
    ]
}

extension ReverbCoefficients {
    /// The decay correction at `decaySeconds`: `nodes` interpolated linearly in log decay
    /// (node k at `ReverbTuning.decayCorrectionNode(k)`), held flat beyond the end nodes.
    /// - Realtime: safe
    @_noLocks @inline(__always)
    static func correction(_ nodes: SIMD16<Double>, decaySeconds: Double) -> Double {
        let last = Double(nodes.scalarCount - 1)
        let position = ReverbControlMath.log2(decaySeconds / ReverbTuning.decayCorrectionFirstSeconds)
            / ReverbTuning.decayCorrectionOctavesPerNode
        if !(position > 0) { return nodes[0] }
        if position >= last { return nodes[nodes.scalarCount - 1] }
        let k = Int(position)
        let fraction = position - Double(k)
        return nodes[k] + fraction * (nodes[k + 1] - nodes[k])
    }
}
