import SystemSupport
import NIOCore
import Replay
import Engine
import ServerPorts
import WireProtocol

/// Serves a replay: steps a `ReplaySession` on the event loop when each
/// step is due on its driver's timeline — paced on `CLOCK_MONOTONIC` at a
/// speed (replay time t is due at start + t ÷ speed), or at once on a
/// manual clock (as fast as the loop allows, the same steps in the same
/// order). Commands run at the replay time that corresponds to now. The
/// same host prints a paced replay (`replay` without `--socket`): only
/// where its events go differs.
public final class ReplayHost<C: SchedulingClock>: EngineHost, @unchecked Sendable {
    private var session: ReplaySession
    private let loop: EventLoop
    private let clock: C
    private let speed: Double
    private let driver: EngineDriver<C>
    private var emit: ([TransitionEvent]) -> Void = { _ in }
    private var finished: () -> Void = {}
    private var announcedEnd = false
    private var started = false
    private var stopped = false
    private var buffer: [TransitionEvent] = []
    /// Paced on `CLOCK_MONOTONIC`: the steps' due instants are real times.
    private let paced: Bool
    public private(set) var emittingInputTime: Int64?

    /// A replay of `session` on `loop`, paced by `clock` at `speed`. Until
    /// `start`, its time 0 is now, for commands; what they start (an
    /// animation) runs at once once the server has given somewhere to send
    /// it (`prepare`), and the recordings then start where that time is.
    public init(loop: EventLoop, session: ReplaySession, clock: C, speed: Double = 1) {
        self.loop = loop
        self.session = session
        self.clock = clock
        self.speed = speed
        paced = clock is MonotonicClock
        driver = EngineDriver(loop: loop, clock: clock, timeline: EngineTimeline(origin: clock.now, speed: speed))
        driver.onDue = { [weak self] _ in self?.fire() }
    }

    public var configuration: EngineConfiguration { session.engine.configuration }
    public var identity: DaemonIdentity?
    public var lastSeq: UInt64 { session.engine.seq }
    public var liveTransitionCount: Int { session.engine.liveCount }
    public func streamIndex(of i: Int) -> Int { session.engine.streamIndex(of: i) }
    public func reload(_ configuration: EngineConfiguration) -> [Int?] {
        let moved = session.reload(configuration)
        schedule()
        return moved
    }

    public func snapshot() -> [TransitionEngine.Snapshot] { session.engine.activeSnapshot() }
    public var rests: [Double?] { session.engine.rests }

    public var statistics: HostStatistics {
        var statistics = HostStatistics()
        statistics.engine = session.engine.tally
        statistics.inputEvents = session.inputEventsFed
        statistics.frames = session.framesFed
        return statistics
    }
    public var geometry: ScreenGeometry? { session.geometry }

    /// Before the replay starts, the events of what commands start
    /// (animations) go to `emit`.
    public func prepare(emit: @escaping ([TransitionEvent]) -> Void) {
        self.emit = emit
        schedule()
    }

    /// Starts the replay now: its recordings begin at this instant, at the
    /// engine time the commands before it reached (0 without any), so
    /// replay time never goes back.
    public func start(emit: @escaping ([TransitionEvent]) -> Void, finished: @escaping () -> Void) {
        self.emit = emit
        self.finished = finished
        let now = max(0, session.engine.now)
        session.begin(at: now)
        driver.restart(on: EngineTimeline(origin: clock.now, start: now, speed: speed))
        started = true
        schedule()
    }

    /// Replay time now (never before what the engine has seen).
    private var replayNow: Double {
        max(session.engine.now, driver.now)
    }

    private func schedule() {
        guard !stopped else { return }
        guard started else {
            // Waiting for clients: only what commands started runs.
            if let t = session.nextAnimation { driver.schedule(at: t) } else { driver.cancel() }
            return
        }
        guard let t = session.nextActivity else {
            driver.cancel()
            if session.isFinished && !announcedEnd {
                announcedEnd = true
                finished()
            }
            return
        }
        driver.schedule(at: t)
    }

    /// Takes every step that is due (at most 512 before the loop does
    /// anything else), hands their events on at once, and sets the timer
    /// for the next.
    private func fire() {
        guard !stopped else { return }
        buffer.removeAll(keepingCapacity: true)
        if !started {
            while let t = session.nextAnimation, driver.isDue(t) { session.advanceAnimations(to: t, into: &buffer) }
            if !buffer.isEmpty { emit(buffer) }
            schedule()
            return
        }
        var steps = 0
        var due: Double?
        while let t = session.nextActivity, steps < 512, driver.isDue(t) {
            let fed = session.framesFed
            session.step(into: &buffer)
            // An input frame's step (not an animation frame's).
            if session.framesFed != fed { due = t }
            steps += 1
        }
        if !buffer.isEmpty {
            // The latency the metrics measure starts when the newest input step was due.
            if paced, let due { emittingInputTime = driver.timeline.instant(of: due).nanoseconds }
            emit(buffer)
            emittingInputTime = nil
        }
        schedule()
    }

    public func perform(_ command: TransitionEngine.Command, transition: Int,
                        into events: inout [TransitionEvent]) -> TransitionEngine.CommandOutcome {
        let outcome = session.perform(command, transition: transition, at: replayNow, into: &events)
        announcedEnd = announcedEnd && session.nextActivity == nil
        schedule()
        return outcome
    }

    public func setExclusions(_ rects: [ScreenRect]) {
        session.setExclusions(rects)
    }

    public func shutdown(into events: inout [TransitionEvent]) {
        session.shutdown(at: replayNow, into: &events)
        stopped = true
        driver.cancel()
    }
}
