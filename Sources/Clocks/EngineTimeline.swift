/// Where engine time (seconds on the input's clock) falls on a clock: engine
/// time `t` is due at `origin + (t − start) ÷ speed`. A paced replay starts
/// its recordings' time 0 at the instant it starts, at `--speed`; the live
/// daemon's engine time is `CLOCK_MONOTONIC` seconds itself (origin at the
/// clock's zero, speed 1). The one rule both follow.
public struct EngineTimeline<C: Clock>: Sendable where C.Instant: Sendable, C.Duration == Duration {
    public let origin: C.Instant
    /// Engine time at `origin`.
    public let start: Double
    public let speed: Double

    public init(origin: C.Instant, start: Double = 0, speed: Double = 1) {
        precondition(speed > 0 && speed.isFinite, "speed must be positive")
        self.origin = origin
        self.start = start
        self.speed = speed
    }

    /// The instant when engine time `t` is due.
    public func instant(of t: Double) -> C.Instant {
        origin.advanced(by: .seconds((t - start) / speed))
    }

    /// Engine time at `instant`.
    public func engineTime(at instant: C.Instant) -> Double {
        start + origin.duration(to: instant).seconds * speed
    }
}

extension EngineTimeline where C == MonotonicClock {
    /// The live daemon's timeline: engine time is `CLOCK_MONOTONIC` seconds.
    public static var live: EngineTimeline { EngineTimeline(origin: MonotonicClock.Instant(sinceZero: .zero)) }
}
