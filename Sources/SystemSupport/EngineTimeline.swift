/// Where engine time (seconds on the input's clock) falls on a clock: engine
/// time `t` is due at `origin + (t − start) ÷ speed`. A paced replay starts
/// its recordings' time 0 at the instant it starts, at `--speed`; the live
/// daemon's engine time is `CLOCK_MONOTONIC` seconds itself (origin at the
/// clock's zero, speed 1). The one rule both follow. Integer nanoseconds on
/// the clock's side; never traps (far instants are clamped).
public struct EngineTimeline: Sendable, Equatable {
    public let origin: MonotonicClock.Instant
    /// Engine time at `origin`.
    public let start: Double
    public let speed: Double

    /// `speed` must be positive and finite; anything else is taken as 1.
    public init(origin: MonotonicClock.Instant, start: Double = 0, speed: Double = 1) {
        self.origin = origin
        self.start = start.isFinite ? start : 0
        self.speed = speed > 0 && speed.isFinite ? speed : 1
    }

    /// The live daemon's timeline: engine time is `CLOCK_MONOTONIC` seconds.
    public static let live = EngineTimeline(origin: MonotonicClock.Instant(nanoseconds: 0))

    /// The instant when engine time `t` is due.
    @inlinable
    public func instant(of t: Double) -> MonotonicClock.Instant {
        let offset = MonotonicClock.Instant.clampedNanoseconds((t - start) / speed * 1e9)
        return MonotonicClock.Instant(nanoseconds: origin.nanoseconds.addingReportingOverflow(offset).overflow
                                      ? (offset < 0 ? Int64.min : Int64.max)
                                      : origin.nanoseconds &+ offset)
    }

    /// Engine time at `instant`.
    @inlinable
    public func engineTime(at instant: MonotonicClock.Instant) -> Double {
        start + Double(instant.nanoseconds &- origin.nanoseconds) * 1e-9 * speed
    }
}
