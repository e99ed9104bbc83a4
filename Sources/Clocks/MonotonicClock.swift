#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC` as a Swift `Clock`: the clock of the kernel's input
/// event timestamps (after `EVIOCSCLOCKID`) and of SwiftNIO's deadlines on
/// Linux, so a live event's time, an animation deadline and "now" are on
/// one time line. The project's one way to read the time.
public struct MonotonicClock: Clock, Sendable {
    /// A point on `CLOCK_MONOTONIC`: the time since the clock's zero (boot).
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        public var sinceZero: Duration

        public init(sinceZero: Duration) { self.sinceZero = sinceZero }

        /// The instant `seconds` after the clock's zero.
        public init(seconds: Double) { sinceZero = .seconds(seconds) }

        public func advanced(by duration: Duration) -> Instant { Instant(sinceZero: sinceZero + duration) }
        public func duration(to other: Instant) -> Duration { other.sinceZero - sinceZero }
        public static func < (a: Instant, b: Instant) -> Bool { a.sinceZero < b.sinceZero }

        /// Seconds since the clock's zero.
        public var seconds: Double { sinceZero.seconds }
        /// Nanoseconds since the clock's zero.
        public var nanoseconds: Int64 {
            let (s, attoseconds) = sinceZero.components
            return s &* 1_000_000_000 &+ attoseconds / 1_000_000_000
        }
    }

    public init() {}

    public var now: Instant { Instant(sinceZero: Self.read()) }

    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await Task.sleep(for: now.duration(to: deadline))
    }

    /// Blocks the calling thread until `deadline` (a signal that interrupts
    /// the wait ends it early when `interrupted` says so).
    public func sleepBlocking(until deadline: Instant, interrupted: () -> Bool = { false }) {
        let nanoseconds = deadline.nanoseconds
        var target = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        while !interrupted() {
            let rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil)
            if rc != EINTR { return }
        }
    }

    /// Seconds since the clock's zero, now.
    public static var seconds: Double { Instant(sinceZero: read()).seconds }

    /// Nanoseconds since the clock's zero, now.
    public static var nanoseconds: Int64 { Instant(sinceZero: read()).nanoseconds }

    private static func read() -> Duration {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return .seconds(Int64(ts.tv_sec)) + .nanoseconds(Int64(ts.tv_nsec))
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    public var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }
}

/// A clock that timers can be set on: how long a timer for `deadline`
/// should wait, and what happens when it fires. The real clock says how long
/// is left, and time is what it is; the manual clock says zero (the same
/// schedule runs at once) and moves to the deadline when it is reached.
public protocol SchedulingClock: Clock, Sendable where Instant == MonotonicClock.Instant, Duration == Swift.Duration {
    /// How long until `deadline` (no side effect).
    func delay(until deadline: Instant) -> Duration
    /// A timer for `deadline` fired, or work due then is being done.
    func reached(_ deadline: Instant)
}

extension MonotonicClock: SchedulingClock {
    public func delay(until deadline: Instant) -> Duration { max(.zero, now.duration(to: deadline)) }
    public func reached(_ deadline: Instant) {}
}

extension ManualClock: SchedulingClock {
    public func delay(until deadline: Instant) -> Duration { .zero }
    public func reached(_ deadline: Instant) { advance(to: deadline) }
}
