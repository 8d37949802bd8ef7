/// A fixed run of `count` elements with exactly one owner: allocated and initialised in `init`,
/// deinitialised and freed in `deinit`. Noncopyable, so the type system keeps the one owner
/// (no hand-written `deallocate()`, no double free, no use after the owner is gone); the
/// storage lives as long as the struct, kernel or class that holds it. Replacing it (a kernel
/// that prepares again) frees the old run at the assignment.
///
/// Reading and writing elements through `base` is realtime safe (there is no subscript: a
/// generic one is a generic call to the realtime checker in a debug build); `init` and the
/// owner's end are not (allocation and freeing happen where the owner is made and dies: in
/// `prepare` or `init`, and on the control thread that drops the owner).
public struct UniqueBuffer<Element>: ~Copyable {
    /// The first element. Valid while this buffer lives; never free it.
    public let base: UnsafeMutablePointer<Element>
    /// Elements in the buffer.
    public let count: Int

    /// No elements (one unused slot is allocated). Not realtime.
    public init() {
        count = 0
        base = .allocate(capacity: 1)
    }

    /// `count` elements (at least one slot is allocated), each `value`. Not realtime.
    public init(repeating value: Element, count: Int) {
        self.count = count
        base = .allocate(capacity: max(count, 1))
        base.initialize(repeating: value, count: count)
    }

    /// `count` elements, element `i` being `element(i)`. Not realtime.
    public init(count: Int, _ element: (Int) -> Element) {
        self.count = count
        base = .allocate(capacity: max(count, 1))
        for i in 0..<count { (base + i).initialize(to: element(i)) }
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// Two channels of `frames` floats, all 0 at first, with one owner (see `UniqueBuffer`): an
/// engine's or a driver's work buffers. `buffers` hands a kernel the plain pointers.
public struct UniqueStereo: ~Copyable {
    public let left: UniqueBuffer<Float>
    public let right: UniqueBuffer<Float>

    /// Two zeroed channels of `frames` floats. Not realtime.
    public init(frames: Int) {
        left = UniqueBuffer(repeating: 0, count: frames)
        right = UniqueBuffer(repeating: 0, count: frames)
    }

    /// Frames in each channel.
    public var frames: Int { @_noLocks @inline(__always) get { left.count } }

    /// The two channels as plain pointers, valid while this owner lives.
    /// - Realtime: safe
    public var buffers: StereoBuffers {
        @_noLocks @inline(__always) get { StereoBuffers(left: left.base, right: right.base, frames: left.count) }
    }
}
