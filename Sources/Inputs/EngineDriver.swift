import SystemSupport
import NIOCore

/// Runs an engine's time on an event loop: what engine time it is now (for
/// commands), and one timer for the next thing due (an input step of a
/// replay, an animation frame), on an injected clock — `CLOCK_MONOTONIC`
/// live and in a paced replay, a manual clock in `--fast` and tests, where
/// everything due runs at once in the same order. The replay's and the
/// live daemon's hosts both schedule through it, so pacing is written once.
/// Confined to its event loop.
public final class EngineDriver<C: SchedulingClock>: @unchecked Sendable {
    public let loop: EventLoop
    public let clock: C
    public private(set) var timeline: EngineTimeline
    private var pending: NIOScheduledCallback?
    private var pendingTime: Double?
    /// Called on the loop with the engine time that is due (set once, by
    /// the host that owns the driver: no closure is made per timer).
    public var onDue: (Double) -> Void = { _ in }
    /// How long a late step waits, at least, for the loop to poll first:
    /// longer than the few microseconds between the scheduling (at the end
    /// of the step's work) and NIO's next look at what is ready, and short
    /// against a step (4.2 ms at 240 Hz).
    static var lateStepWait: TimeAmount { .microseconds(100) }

    public init(loop: EventLoop, clock: C, timeline: EngineTimeline) {
        self.loop = loop
        self.clock = clock
        self.timeline = timeline
    }

    /// Moves engine time onto another timeline (a replay that starts now);
    /// the timer set before is dropped.
    public func restart(on timeline: EngineTimeline) {
        cancel()
        self.timeline = timeline
    }

    /// Engine time now.
    public var now: Double { timeline.engineTime(at: clock.now) }

    /// Whether engine time `t` is due now; if it is, the caller does what
    /// is due then (on the manual clock: always, and the clock moves to it).
    public func isDue(_ t: Double) -> Bool {
        let instant = timeline.instant(of: t)
        guard clock.nanosecondsUntil(instant) == 0 else { return false }
        clock.reached(instant)
        return true
    }

    /// Calls `onDue(t)` on the loop when engine time `t` is due, replacing
    /// the timer set before (unless it is for the same time).
    public func schedule(at t: Double) {
        loop.assertInEventLoop()
        if pending != nil && pendingTime == t { return }
        cancel()
        pendingTime = t
        let instant = timeline.instant(of: t)
        if clock.nanosecondsUntil(instant) == 0 {
            // Due already: late, on a clock that passes by itself (the last
            // step's work, a fan-out to many clients, took longer than the
            // step). NIO runs whatever is ready before it polls its sockets
            // again, so a timer that is always due would keep the loop from
            // polling for as long as the work stays late: no accepts, no
            // commands, no pings answered. Due a little after now, it lets
            // the loop poll once between steps. A manual clock is never
            // late: what is due runs at once.
            let wait = clock.passesByItself ? Self.lateStepWait : .zero
            pending = try? loop.scheduleCallback(in: wait, handler: Fire(driver: self))
        } else {
            // A scheduled callback rather than a task: no promise to
            // allocate per step. NIO's deadlines are CLOCK_MONOTONIC too.
            let deadline = NIODeadline.uptimeNanoseconds(UInt64(max(0, instant.nanoseconds)))
            pending = try? loop.scheduleCallback(at: deadline, handler: Fire(driver: self))
        }
    }

    /// Drops the timer, if one is set.
    public func cancel() {
        pending?.cancel()
        pending = nil
        pendingTime = nil
    }

    private func fire() {
        guard let t = pendingTime else { return }
        clock.reached(timeline.instant(of: t))
        pending = nil
        pendingTime = nil
        onDue(t)
    }

    private struct Fire: NIOScheduledCallbackHandler, Sendable {
        let driver: EngineDriver
        func handleScheduledCallback(eventLoop: some EventLoop) { driver.fire() }
    }
}
