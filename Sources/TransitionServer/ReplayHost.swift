import NIOCore
import TransitionEngine
import Replay

/// Serves a replay: steps a `ReplaySession` on the event loop at the
/// recording's pace (replay time t is due at start + t ÷ speed on the
/// loop's monotonic clock), or as fast as the loop allows when `speed` is
/// nil. Commands run at the replay time that corresponds to now.
public final class ReplayHost: EngineHost, @unchecked Sendable {
    private let loop: EventLoop
    private var session: ReplaySession
    private let speed: Double?
    private var start = NIODeadline.now()
    private var task: NIOScheduledCallback?
    private var emit: ([TransitionEvent]) -> Void = { _ in }
    private var finished: () -> Void = {}
    private var announcedEnd = false
    private var stopped = false
    private var buffer: [TransitionEvent] = []

    public init(loop: EventLoop, session: ReplaySession, speed: Double?) {
        self.loop = loop
        self.session = session
        self.speed = speed
    }

    public var configuration: EngineConfiguration { session.engine.configuration }
    public var lastSeq: UInt64 { session.engine.seq }

    public func snapshot() -> [TransitionEngine.Snapshot] { session.engine.activeSnapshot() }

    public func start(emit: @escaping ([TransitionEvent]) -> Void, finished: @escaping () -> Void) {
        self.emit = emit
        self.finished = finished
        start = .now()
        schedule()
    }

    /// Replay time now.
    private var replayNow: Double {
        guard let speed else { return session.engine.now }
        let elapsed = Double((NIODeadline.now() - start).nanoseconds) * 1e-9
        return max(session.engine.now, elapsed * speed)
    }

    private func deadline(for t: Double) -> NIODeadline {
        guard let speed else { return .now() }
        return start + .nanoseconds(Int64((t / speed * 1e9).rounded(.up)))
    }

    private func schedule() {
        task?.cancel()
        task = nil
        guard !stopped else { return }
        guard let t = session.nextActivity else {
            if session.isFinished && !announcedEnd {
                announcedEnd = true
                finished()
            }
            return
        }
        if speed == nil {
            loop.execute { self.fire() }
        } else {
            // A scheduled callback rather than a scheduled task: no promise
            // and no future to allocate for each event.
            task = try? loop.scheduleCallback(at: deadline(for: t), handler: Tick(host: self))
        }
    }

    /// What the event loop calls when the next step is due.
    private struct Tick: NIOScheduledCallbackHandler, Sendable {
        let host: ReplayHost
        func handleScheduledCallback(eventLoop: some EventLoop) {
            host.task = nil
            host.fire()
        }
    }

    private func fire() {
        guard !stopped else { return }
        buffer.removeAll(keepingCapacity: true)
        let now = NIODeadline.now()
        var steps = 0
        while let t = session.nextActivity, steps < 512 {
            if speed != nil && deadline(for: t) > now { break }
            session.step(into: &buffer)
            steps += 1
        }
        if !buffer.isEmpty { emit(buffer) }
        schedule()
    }

    public func perform(_ command: TransitionEngine.Command, transition: Int,
                        into events: inout [TransitionEvent]) -> TransitionEngine.CommandOutcome {
        let outcome = session.perform(command, transition: transition, at: replayNow, into: &events)
        announcedEnd = announcedEnd && session.nextActivity == nil
        schedule()
        return outcome
    }

    public func shutdown(into events: inout [TransitionEvent]) {
        session.shutdown(at: replayNow, into: &events)
        stopped = true
        task?.cancel()
        task = nil
    }
}
