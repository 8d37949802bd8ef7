// Stereo sample layouts: libsndfile and libsamplerate work on interleaved frames (L R L R …),
// the engine on one buffer per channel.

enum Interleaving {
    /// Copies `frames` interleaved stereo frames from `source` into `left` and `right`.
    static func split(_ source: UnsafePointer<Float>, frames: Int,
                      left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        for i in 0..<frames {
            left[i] = source[2 * i]
            right[i] = source[2 * i + 1]
        }
    }

    /// Copies `frames` frames of `left` and `right` into `destination`, interleaved.
    static func merge(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int,
                      into destination: UnsafeMutablePointer<Float>) {
        for i in 0..<frames {
            destination[2 * i] = left[i]
            destination[2 * i + 1] = right[i]
        }
    }
}
