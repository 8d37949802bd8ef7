import Foundation

/// A logarithmic axis: values from `minimum` to `maximum` (both > 0, in the axis' unit: Hz,
/// seconds) placed from the pixel `start` to the pixel `end` (left to right, or bottom to top
/// with `end` above `start`), equal ratios at equal distances. The one log mapping the
/// response and decay plots share.
struct LogAxis {
    let minimum: Double, maximum: Double
    let start: Double, end: Double

    /// The pixel where `value` sits (outside the axis' range it lies beyond its ends).
    func position(_ value: Double) -> Double {
        start + (end - start) * log(value / minimum) / log(maximum / minimum)
    }
}
