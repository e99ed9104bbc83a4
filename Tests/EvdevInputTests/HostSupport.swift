import SystemSupport
import Foundation
import Logging
import NIOCore
import NIOPosix
import Recordings
import Synchronization
import TestSupport
import Engine
@testable import EvdevInput
@testable import Inputs

/// An input source the test drives: reports pushed here reach the host
/// through the same `ReportQueue` hand-over the input thread uses.
final class FakeSource: InputSource, @unchecked Sendable {
    let queue = ReportQueue(maximumPending: Int.max)
    let stopped = Atomic<Bool>(false)

    func start(ready: @escaping @Sendable () -> Void) { queue.setReady(ready) }
    func take(into reports: inout [InputReport]) { queue.take(into: &reports) }
    func stop() { stopped.store(true, ordering: .relaxed) }
    func push(_ reports: InputReport...) { queue.push(reports) }
    func push(all reports: [InputReport]) { queue.push(reports) }
}

/// Log lines kept for the test to read.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    /// A logger that writes here (level and message).
    func logger() -> Logger {
        Logger(label: "test") { _ in CapturingHandler(sink: self) }
    }

    struct CapturingHandler: LogHandler {
        let sink: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            sink.append("\(event.level) \(event.message)")
        }
    }
}

/// A DeviceHost on its own event loop, with what it emitted.
final class HostHarness: @unchecked Sendable {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let source = FakeSource()
    let logs = LogLines()
    let host: DeviceHost<MonotonicClock>
    private let lock = NSLock()
    private var emitted: [TransitionEvent] = []

    /// `onEmit`: what the server does with each batch of events, after
    /// they are kept (on the loop, inside the host's `emit`).
    /// `prepare`: the CLI's settings, before the host starts.
    init(configuration: EngineConfiguration = .standard,
         onEmit: (@Sendable (DeviceHost<MonotonicClock>, [TransitionEvent]) -> Void)? = nil,
         prepare: ((DeviceHost<MonotonicClock>) -> Void)? = nil) {
        host = DeviceHost(loop: group.next(), configuration: configuration, source: source, logger: logs.logger())
        prepare?(host)
        let loop = group.next()
        try! loop.submit { [self] in
            host.start(emit: { [self] events in
                lock.lock()
                emitted += events
                lock.unlock()
                onEmit?(host, events)
            }, finished: {})
        }.wait()
    }

    var events: [TransitionEvent] {
        lock.lock()
        defer { lock.unlock() }
        return emitted
    }

    /// Runs `body` on the loop and returns its result.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        try! group.next().submit(body).wait()
    }

    /// Waits until `done` holds for the emitted events (up to `timeout` s).
    @discardableResult
    func waitFor(timeout: Double = 10, _ done: ([TransitionEvent]) -> Bool) -> Bool {
        waitUntil(timeout: timeout, pollingEvery: 0.002) { done(events) }
    }

    /// Waits until the engine has nothing in flight and some events came.
    @discardableResult
    func waitUntilIdle(after count: Int = 1, timeout: Double = 10) -> Bool {
        waitFor(timeout: timeout) { events in
            events.count >= count && (events.last?.kind == .finished || events.last?.kind == .cancelled)
                && onLoop { self.host.snapshot().isEmpty }
        }
    }

    func shutdown() {
        _ = onLoop { [host] in
            var events: [TransitionEvent] = []
            host.shutdown(into: &events)
            return events.count
        }
        try? group.syncShutdownGracefully()
    }
}

/// A project recording with its times moved onto CLOCK_MONOTONIC so that
/// its last event is `endingAgo` seconds before now (the host's animation
/// deadlines are then due at once).
func liveRecording(_ name: String, endingAgo: Double = 1) throws -> (DeviceDescription, [InputEvent]) {
    let (description, events) = try recording(name)
    let last = events.last!.time
    let shift = Int64((MonotonicClock.seconds - endingAgo) * 1e6) - last
    return (description, events.map { InputEvent(time: $0.time + shift, type: $0.type, code: $0.code, value: $0.value) })
}

/// What the engine gives for these events fed directly (the reference).
func directRun(_ description: DeviceDescription, _ events: [InputEvent],
               configuration: EngineConfiguration = .standard) throws -> [TransitionEvent] {
    var assembler = try TouchFrameAssembler(device: description, timeOrigin: 0)
    var engine = TransitionEngine(configuration: configuration)
    var out: [TransitionEvent] = []
    for e in events where assembler.feed(e) {
        engine.process(assembler.frame, into: &out)
    }
    engine.settle(into: &out)
    return out
}
