import Dispatch
import TransitionEngine
import EventStream

/// Encodes and writes batches of events on a second thread, for
/// `replay --fast`: the engine thread hands over a batch of a few thousand
/// events at a time (never one event at a time) and goes on, so reading and
/// the engine overlap with encoding and writing. Order is kept (one serial
/// queue); at most `depth` batches wait, which bounds memory.
final class BackgroundEncoder: @unchecked Sendable {
    private let queue = DispatchQueue(label: "transitiond.encoder")
    private let slots: DispatchSemaphore
    private let encoder: EventEncoder
    // Touched only on `queue` (and after `finish`).
    private var output: StandardOutput
    private let writer = JSONWriter(capacity: 1 << 18)

    init(encoder: EventEncoder, output: StandardOutput, depth: Int = 4) {
        self.encoder = encoder
        self.output = output
        self.slots = DispatchSemaphore(value: depth)
    }

    /// Queues raw bytes (the hello line) in order with the events.
    func submit(_ bytes: [UInt8]) {
        slots.wait()
        queue.async {
            self.writer.raw(bytes)
            self.slots.signal()
        }
    }

    /// Queues a batch; blocks while `depth` batches are waiting.
    func submit(_ events: [TransitionEvent]) {
        slots.wait()
        queue.async {
            for e in events { self.encoder.encode(e, into: self.writer) }
            if self.writer.count >= 1 << 17 { self.output.write(self.writer) }
            self.slots.signal()
        }
    }

    /// Waits for every batch and writes what is left; returns the output
    /// (with its error state).
    func finish() -> StandardOutput {
        queue.sync {
            output.write(writer)
        }
        return output
    }
}
