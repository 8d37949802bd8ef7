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
    }

    /// The latest drawing, nil before the first is done.
    var latest: Drawing? { slot.withLock { $0.drawing } }

    /// Starts following `state`: listens to the picture's addresses as a WebSocket client would
    /// (a queue that keeps only the newest pushes) and draws the current state once.
    func start() {
        let (changes, queue) = AsyncStream<Outgoing>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.addListener(queue)
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
    /// of response (~115 MB in arrays at 48 kHz, freed when it ends), and glibc keeps freed
    /// heap by default: without this a live rack stayed ~120 MB larger after a 30 s decay was
    /// drawn (141 → 265 MB RSS).
    private func releaseFreedMemory() {
        Self.mallocTrim?(0)
    }

    /// glibc's `malloc_trim` (not in the Glibc module: <malloc.h>), nil on a C library without it.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
