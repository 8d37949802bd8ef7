/// Gathers a lane's curve segments and merges what the lane cannot show apart: a segment
/// narrower than `framesPerPoint` (about two pixels of the plot) joins a dense stretch that keeps,
/// for each bucket of `framesPerPoint` frames, its first and last points and its lowest and
/// highest, in time order. However many events a file has, a lane then holds at most about four
/// points a bucket beside the segments wide enough to be seen, and every peak and trough is
/// still drawn.
struct CurveDecimator {
    /// Frames of the engine's sample grid per bucket.
    let framesPerPoint: Double
    let sampleRate: Double
    private(set) var segments: [CurveSegment] = []

    /// The dense stretch being gathered: its closed buckets' points, its kind (a ramp when any
    /// ramp joined it), its first line, and how many segments joined.
    private var densePoints: [TimelinePoint] = []
    private var denseKind = CurveSegment.Kind.hold
    private var denseLine: Int?
    private var denseCount = 0
    /// The open bucket: its index and its first, lowest, highest and last points.
    private var bucket: Int64 = .min
    private var bucketPoints: (first: TimelinePoint, low: TimelinePoint, high: TimelinePoint, last: TimelinePoint)?

    init(framesPerPoint: Double, sampleRate: Double) {
        self.framesPerPoint = framesPerPoint
        self.sampleRate = sampleRate
    }

    /// Adds the next segment (segments come in time order).
    mutating func append(_ segment: CurveSegment) {
        guard let first = segment.points.first, let last = segment.points.last else { return }
        if (last.time - first.time) * sampleRate >= framesPerPoint {
            finishDense()
            segments.append(segment)
            return
        }
        if denseCount == 0 { denseLine = segment.line }
        denseCount += 1
        if segment.kind == .ramp { denseKind = .ramp }
        for point in segment.points { add(point) }
    }

    /// The segments, the last dense stretch included.
    mutating func finish() -> [CurveSegment] {
        finishDense()
        return segments
    }

    private mutating func add(_ point: TimelinePoint) {
        let index = Int64((point.time * sampleRate / framesPerPoint).rounded(.down))
        guard index == bucket, var open = bucketPoints else {
            closeBucket()
            bucket = index
            bucketPoints = (point, point, point, point)
            return
        }
        if point.value < open.low.value { open.low = point }
        if point.value > open.high.value { open.high = point }
        open.last = point
        bucketPoints = open
    }

    private mutating func closeBucket() {
        guard let open = bucketPoints else { return }
        bucketPoints = nil
        let inOrder = [open.first, open.low, open.high, open.last].sorted { $0.time < $1.time }
        for point in inOrder where densePoints.last != point { densePoints.append(point) }
    }

    private mutating func finishDense() {
        closeBucket()
        bucket = .min
        defer { densePoints = []; denseKind = .hold; denseLine = nil; denseCount = 0 }
        guard denseCount > 0, let first = densePoints.first else { return }
        let points = densePoints.count >= 2 ? densePoints : [first, first]
        segments.append(CurveSegment(kind: denseKind, line: denseLine, points: points, merged: denseCount))
    }
}
