import Dispatch
import Synchronization
import SystemSupport
import Engine
import EventStream
import WireProtocol

/// Encodes and writes batches of events on a second thread, for
/// `replay --fast`: the engine thread hands over a batch of a few thousand
/// events at a time (never one event at a time) and goes on, so reading and
/// the engine overlap with encoding and writing. Order is kept (one queue,
/// one thread); at most `depth` batches wait, which bounds memory. Without a
/// thread to be had, each batch is encoded at once on the caller's.
///
/// Made `holding`, it writes nothing until `release()`, or drops it all on
/// `discard()`: for a replay that starts while its recording is still being
/// read, whose output must not begin if the file turns out to be bad. What
/// is held is bounded by `holdLimit`: past it the encoder waits for the
/// verdict, the batches back up, and the engine waits with them.
final class BackgroundEncoder: @unchecked Sendable {
    /// Whether the output may be written yet.
    private enum Verdict: UInt8 {
        case holding = 0
        case release = 1
        case discard = 2
    }
    private enum Job {
        case bytes([UInt8])
        case events([TransitionEvent])
        case finish
    }

    private let jobs = Locked<[Job]>([])
    /// Counts free places in `jobs`.
    private let slots: DispatchSemaphore
    /// Counts jobs waiting in `jobs`.
    private let waiting = DispatchSemaphore(value: 0)
    private var thread: NativeThread?
    private let encoder: EventEncoder
    // Touched only by the encoding thread (or inline), and after `finish`.
    private var output: StandardOutput
    private var writer = JSONWriter(capacity: 1 << 18)
    /// What was encoded while holding, in order: whole writers, handed on
    /// rather than grown (copying and faulting in the memory a second time).
    private var held: [JSONWriter] = []
    private var heldBytes = 0
    private let failed = Atomic<Bool>(false)
    private let verdict: Atomic<UInt8>
    /// Signalled once when the verdict is given.
    private let decided = DispatchSemaphore(value: 0)
    private let holdLimit: Int
    /// Emptied batches, given back for the engine to fill again: a batch
    /// the engine kept after handing it over would be copied on its next
    /// write, into memory faulted in afresh every time.
    private let emptied = Locked<[[TransitionEvent]]>([])

    /// A write has failed: nothing more is written, and the caller stops
    /// submitting (read from any thread).
    var outputFailed: Bool { failed.load(ordering: .relaxed) }

    init(encoder: EventEncoder, output: StandardOutput, depth: Int = 4, holding: Bool = false,
         holdLimit: Int = 32 << 20) {
        self.encoder = encoder
        self.output = output
        self.slots = DispatchSemaphore(value: depth)
        self.verdict = Atomic((holding ? Verdict.holding : .release).rawValue)
        self.holdLimit = holdLimit
        thread = try? NativeThread(name: "encoder") { [self] in
            while true {
                waiting.wait()
                var job = jobs.withLock { $0.removeFirst() }
                defer { slots.signal() }
                if case .finish = job { return }
                perform(job)
                if case .events(var batch) = job {
                    job = .finish   // the batch's only reference is now `batch`
                    batch.removeAll(keepingCapacity: true)
                    emptied.withLock { $0.append(batch) }
                }
            }
        }
    }

    /// Queues raw bytes (the hello line) in order with the events.
    func submit(_ bytes: [UInt8]) { enqueue(.bytes(bytes)) }

    /// Queues a batch (blocking while `depth` batches are waiting) and
    /// leaves `events` an empty one to fill next (one given back by the
    /// encoder when there is one).
    func submit(_ events: inout [TransitionEvent]) {
        let batch = events
        events = emptied.withLock { $0.popLast() } ?? []
        if events.isEmpty && events.capacity < batch.count { events.reserveCapacity(batch.capacity) }
        enqueue(.events(batch))
    }

    /// The output held so far, and all that follows, is to be written.
    func release() { decide(.release) }

    /// The output held so far, and all that follows, is dropped.
    func discard() { decide(.discard) }

    private func decide(_ given: Verdict) {
        guard verdict.compareExchange(expected: Verdict.holding.rawValue, desired: given.rawValue,
                                      ordering: .acquiringAndReleasing).exchanged else { return }
        decided.signal()
    }

    private var currentVerdict: Verdict { Verdict(rawValue: verdict.load(ordering: .acquiring)) ?? .discard }

    /// Waits for every batch and writes what is left (unless discarded or
    /// still held: a caller gives its verdict first); returns the output
    /// (with its error state).
    func finish() -> StandardOutput {
        if let thread {
            enqueue(.finish)
            thread.join()
        }
        if currentVerdict == .release {
            writeHeld()
            output.write(writer)
        }
        held = []
        writer.reset()
        return output
    }

    private func enqueue(_ job: Job) {
        guard thread != nil else { return perform(job) }
        slots.wait()
        jobs.withLock { $0.append(job) }
        waiting.signal()
    }

    private func perform(_ job: Job) {
        switch job {
        case .bytes(let bytes):
            writer.raw(bytes)
        case .events(let events):
            guard !output.closed else { return }
            var given = currentVerdict
            if given == .discard { return dropAll() }
            for e in events { encoder.encode(e, into: writer) }
            guard writer.count >= 1 << 17 else { return }
            if given == .holding {
                heldBytes += writer.count
                held.append(writer)
                // As large as the last one grew: one batch's lines fit
                // without growing (and copying) again.
                writer = JSONWriter(capacity: writer.capacity)
                if heldBytes < holdLimit { return }
                // Enough held: wait for the verdict (the engine backs up behind us).
                decided.wait()
                decided.signal()
                given = currentVerdict
                if given == .discard { return dropAll() }
            }
            writeHeld()
            output.write(writer)
            if output.closed { failed.store(true, ordering: .relaxed) }
        case .finish:
            return
        }
    }

    /// Writes what was held, once released.
    private func writeHeld() {
        guard !held.isEmpty else { return }
        for chunk in held { output.write(chunk) }
        held = []
        heldBytes = 0
    }

    private func dropAll() {
        held = []
        heldBytes = 0
        writer.reset()
    }
}
