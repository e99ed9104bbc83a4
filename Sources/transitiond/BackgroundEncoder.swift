import Dispatch
import Synchronization
import SystemSupport
import TransitionEngine
import EventStream

/// Encodes and writes batches of events on a second thread, for
/// `replay --fast`: the engine thread hands over a batch of a few thousand
/// events at a time (never one event at a time) and goes on, so reading and
/// the engine overlap with encoding and writing. Order is kept (one queue,
/// one thread); at most `depth` batches wait, which bounds memory. Without a
/// thread to be had, each batch is encoded at once on the caller's.
final class BackgroundEncoder: @unchecked Sendable {
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
    private let writer = JSONWriter(capacity: 1 << 18)
    private let failed = Atomic<Bool>(false)

    /// A write has failed: nothing more is written, and the caller stops
    /// submitting (read from any thread).
    var outputFailed: Bool { failed.load(ordering: .relaxed) }

    init(encoder: EventEncoder, output: StandardOutput, depth: Int = 4) {
        self.encoder = encoder
        self.output = output
        self.slots = DispatchSemaphore(value: depth)
        thread = try? NativeThread(name: "encoder") { [self] in
            while true {
                waiting.wait()
                let job = jobs.withLock { $0.removeFirst() }
                defer { slots.signal() }
                if case .finish = job { return }
                perform(job)
            }
        }
    }

    /// Queues raw bytes (the hello line) in order with the events.
    func submit(_ bytes: [UInt8]) { enqueue(.bytes(bytes)) }

    /// Queues a batch; blocks while `depth` batches are waiting.
    func submit(_ events: [TransitionEvent]) { enqueue(.events(events)) }

    /// Waits for every batch and writes what is left; returns the output
    /// (with its error state).
    func finish() -> StandardOutput {
        if let thread {
            enqueue(.finish)
            thread.join()
        }
        output.write(writer)
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
            for e in events { encoder.encode(e, into: writer) }
            if writer.count >= 1 << 17 {
                output.write(writer)
                if output.closed { failed.store(true, ordering: .relaxed) }
            }
        case .finish:
            return
        }
    }
}
