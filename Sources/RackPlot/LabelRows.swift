/// Left-to-right slots for labels that must not overlap: each label takes the first row
/// where it fits.
struct LabelRows {
    var rowEnds: [Double] = []
    let maximumRows: Int

    init(maximumRows: Int) { self.maximumRows = maximumRows }

    /// The row for a label spanning `left…right`.
    mutating func place(left: Double, right: Double, gap: Double = 6) -> Int {
        for (i, end) in rowEnds.enumerated() where end + gap <= left {
            rowEnds[i] = right
            return i
        }
        if rowEnds.count < maximumRows {
            rowEnds.append(right)
            return rowEnds.count - 1
        }
        // Every row is taken: the one that frees up first.
        let i = rowEnds.indices.min { rowEnds[$0] < rowEnds[$1] }!
        rowEnds[i] = max(rowEnds[i], right)
        return i
    }
}
