import Foundation
import Synchronization

/// Draws one picture of the page on a serial queue of its own, never on the HTTP event loop nor
/// on the control thread: the control thread only publishes to `LiveState`, whose push wakes the
/// worker. Coalescing: while a drawing runs, any number of changes mark it stale once, and the
/// next drawing takes the state as it is then, so a burst of changes (a fader dragged, a preset
/// recalled) draws at most twice: the one running and the latest. Each finished drawing gets the
/// next version, which is pushed at `Picture.versionAddress` to the pages that listen; they then
/// ask for the picture, served from here as drawn.
final class PictureWorker: Sendable {
    let picture: PagePictures.Picture
    private let state: LiveState
    /// Where it draws (internal for tests: work queued here runs before the next drawing).
    let queue: DispatchQueue

    /// A finished drawing.
    struct Drawing: Sendable {
        let inputs: PagePictures.Inputs
        let svg: String
        let version: Int
        /// How long it took to draw (s).
        let seconds: Double
    }

    private struct Slot {
        var drawing: Drawing?
        /// A drawing is queued or running.
        var busy = false
        /// A change arrived while busy: look again when done.
        var stale = false
    }

    private let slot = Mutex(Slot())

    init(picture: PagePictures.Picture, state: LiveState) {
        self.picture = picture
        self.state = state
        queue = DispatchQueue(label: "rack.picture." + picture.name, qos: .utility)
        Malloc.mapLargeBlocks
    }

    /// The latest drawing, nil before the first is done.
    var latest: Drawing? { slot.withLock { $0.drawing } }

    /// Starts following `state`: listens to the picture's addresses as a WebSocket client would
    /// (a queue that keeps only the newest pushes) and draws the current state once.
    func start() {
        let (changes, queue) = AsyncStream<Outgoing>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.addListener(queue, isConnection: false)
        for address in picture.watchedAddresses { state.setListening(id, path: address, true) }
        Task.detached { [self] in
            for await _ in changes { changed() }
        }
        changed()
    }

    /// Returns once every drawing asked for before it is done (tests).
    func settle() { queue.sync {} }

    /// Something the picture may depend on changed: draw, or mark the running drawing stale.
    func changed() {
        let begin = slot.withLock { s -> Bool in
            if s.busy { s.stale = true; return false }
            s.busy = true
            return true
        }
        if begin { queue.async { self.drawWhileStale() } }
    }

    /// On the queue: draws the current state unless it is what was last drawn, then again while
    /// changes arrived meanwhile.
    private func drawWhileStale() {
        repeat {
            let inputs = picture.inputs(state.snapshot())
            if inputs != latest?.inputs { draw(inputs) }
        } while slot.withLock({ s -> Bool in
            if s.stale { s.stale = false; return true }
            s.busy = false
            return false
        })
    }

    private func draw(_ inputs: PagePictures.Inputs) {
        let clock = ContinuousClock()
        let start = clock.now
        let svg = inputs.svg
        let elapsed = start.duration(to: clock.now)
        releaseFreedMemory()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let version = slot.withLock { s -> Int in
            let version = (s.drawing?.version ?? 0) + 1
            s.drawing = Drawing(inputs: inputs, svg: svg, version: version, seconds: seconds)
            return version
        }
        state.publish(picture.versionAddress, [.int(version), .float(seconds)])
    }

    /// Gives the heap a drawing freed back to the system. A decay drawing measures up to 60.3 s
    /// of response (~115 MB in arrays at 48 kHz, freed when it ends). glibc kept it: its
    /// threshold for serving a block by mmap rises to the largest block freed, so the next
    /// drawing's arrays came from a thread's arena, whose top it keeps up to twice that (a live
    /// rack stayed 45–120 MB larger after a 30 s decay was drawn). So blocks of 1 MB and more
    /// are mapped, and unmapped when freed (`Malloc.mapLargeBlocks`, once); `malloc_trim` then
    /// returns what smaller blocks freed.
    private func releaseFreedMemory() {
        _ = Malloc.trim?(0)
    }
}

/// glibc's allocator settings (<malloc.h> is not in the Glibc module: looked up by name; nil
/// on a C library without them).
private enum Malloc {
    /// `malloc_trim(pad)`.
    static let trim: (@convention(c) (Int) -> Int32)? = symbol("malloc_trim")
    /// `mallopt(param, value)`.
    static let opt: (@convention(c) (Int32, Int32) -> Int32)? = symbol("mallopt")
    /// glibc's `M_MMAP_THRESHOLD`.
    static let mmapThreshold: Int32 = -3

    /// Blocks of 1 MB and more are mapped for themselves (fixed: no longer raised when one is
    /// freed), for the whole process: done once, before the first drawing.
    static let mapLargeBlocks: Void = { _ = opt?(mmapThreshold, 1 << 20) }()

    static func symbol<T>(_ name: String) -> T? {
        #if os(Linux)
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: T.self)
        #else
        return nil
        #endif
    }
}
