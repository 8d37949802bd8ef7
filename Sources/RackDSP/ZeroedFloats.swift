import Glibc

/// Float buffers that start as zeros without being written: `calloc` hands out large blocks as
/// fresh pages, which the kernel maps to zeros on first touch, so a delay memory that is never
/// used (a spare reverb network, most of a ring that a short file never fills) costs neither a
/// memset nor its page faults. Memory the audio thread renders into is made resident at once
/// (`allocateResident`): a first touch there is a page fault on the audio thread. Not
/// realtime: allocation and freeing happen in `prepare`, `init` and `deallocate` only.
enum ZeroedFloats {
    /// `count` floats, all 0. Free with `free(_:)`, never with `deallocate()`.
    static func allocate(_ count: Int) -> UnsafeMutablePointer<Float> {
        guard let raw = calloc(max(count, 1), MemoryLayout<Float>.stride) else {
            // As the standard allocator does when memory is exhausted.
            fatalError("out of memory allocating \(count) floats")
        }
        return raw.bindMemory(to: Float.self, capacity: max(count, 1))
    }

    /// `count` floats, all 0, every page of them already mapped: one 0 written per page (the
    /// kernel zeroes the page at that first write, here, not on the audio thread). Free with
    /// `free(_:)`.
    static func allocateResident(_ count: Int) -> UnsafeMutablePointer<Float> {
        let p = allocate(count)
        let perPage = max(1, sysconf(Int32(_SC_PAGESIZE)) / MemoryLayout<Float>.stride)
        var i = 0
        while i < count {
            p[i] = 0
            i += perPage
        }
        if count > 0 { p[count - 1] = 0 }
        return p
    }

    /// Frees a buffer from `allocate(_:)`; nil is ignored.
    static func free(_ p: UnsafeMutablePointer<Float>?) {
        guard let p else { return }
        Glibc.free(UnsafeMutableRawPointer(p))
    }
}

/// `count` floats from `ZeroedFloats.allocateResident` (all 0, every page mapped) with one
/// owner (see `UniqueBuffer`): freed when the owner goes. Not realtime to make or to drop;
/// reading and writing through `base` is.
struct ResidentFloats: ~Copyable {
    /// The first float. Valid while this owner lives; never free it.
    let base: UnsafeMutablePointer<Float>
    let count: Int

    init(count: Int) {
        self.count = count
        base = ZeroedFloats.allocateResident(count)
    }

    deinit { ZeroedFloats.free(base) }
}
