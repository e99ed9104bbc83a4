#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC` as a Swift `Clock`: the clock of the kernel's input
/// event timestamps (after `EVIOCSCLOCKID`) and of SwiftNIO's deadlines on
/// Linux, so a live event's time, an animation deadline and "now" are on
/// one time line. The project's one way to read the time.
public struct MonotonicClock: Clock, Sendable {
    /// A point on `CLOCK_MONOTONIC`, in nanoseconds since the clock's zero
    /// (boot). Kept as an integer: reading and comparing it costs nothing
    /// on the hot path; `Duration` arithmetic is there for `Clock`.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        public var nanoseconds: Int64

        public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

        public init(sinceZero: Duration) { nanoseconds = sinceZero.wholeNanoseconds }

        /// The instant `seconds` after the clock's zero (clamped to what
        /// 64-bit nanoseconds hold; never traps).
        public init(seconds: Double) { nanoseconds = Self.clampedNanoseconds(seconds * 1e9) }

        public var sinceZero: Duration { .nanoseconds(nanoseconds) }
        /// Seconds since the clock's zero.
        public var seconds: Double { Double(nanoseconds) * 1e-9 }

        public func advanced(by duration: Duration) -> Instant {
            Instant(nanoseconds: nanoseconds &+ duration.wholeNanoseconds)
        }
        public func duration(to other: Instant) -> Duration { .nanoseconds(other.nanoseconds &- nanoseconds) }
        public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

        /// `value` nanoseconds as an `Int64`, clamped (NaN is 0).
        @inlinable
        public static func clampedNanoseconds(_ value: Double) -> Int64 {
            guard value == value else { return 0 }
            if value >= 9.2e18 { return Int64.max }
            if value <= -9.2e18 { return Int64.min }
            return Int64(value.rounded())
        }
    }

    public init() {}

    public var now: Instant { Instant(nanoseconds: Self.nanoseconds) }

    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await Task.sleep(for: now.duration(to: deadline))
    }

    /// Blocks the calling thread until `deadline` (a signal that interrupts
    /// the wait ends it early when `interrupted` says so).
    public func sleepBlocking(until deadline: Instant, interrupted: () -> Bool = { false }) {
        let nanoseconds = max(0, deadline.nanoseconds)
        var target = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        while !interrupted() {
            let rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil)
            if rc != EINTR { return }
        }
    }

    /// Seconds since the clock's zero, now.
    public static var seconds: Double { Double(nanoseconds) * 1e-9 }

    /// Nanoseconds since the clock's zero, now.
    public static var nanoseconds: Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    public var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }

    /// The duration in whole nanoseconds, clamped to `Int64`.
    public var wholeNanoseconds: Int64 {
        let (s, attoseconds) = components
        let (scaled, overflow) = s.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return s < 0 ? Int64.min : Int64.max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return s < 0 ? Int64.min : Int64.max }
        return sum
    }
}

/// A clock that timers can be set on: how long a timer for `deadline`
/// should wait, and what happens when it fires. The real clock says how long
/// is left, and time is what it is; the manual clock says zero (the same
/// schedule runs at once) and moves to the deadline when it is reached.
public protocol SchedulingClock: Clock, Sendable where Instant == MonotonicClock.Instant, Duration == Swift.Duration {
    /// Nanoseconds until `deadline`, at least 0 (no side effect).
    func nanosecondsUntil(_ deadline: Instant) -> Int64
    /// A timer for `deadline` fired, or work due then is being done.
    func reached(_ deadline: Instant)
    /// Whether time passes by itself (so work can be late), rather than
    /// moving to each deadline as it is reached.
    var passesByItself: Bool { get }
}

extension MonotonicClock: SchedulingClock {
    public func nanosecondsUntil(_ deadline: Instant) -> Int64 { max(0, deadline.nanoseconds &- Self.nanoseconds) }
    public func reached(_ deadline: Instant) {}
    public var passesByItself: Bool { true }
}

extension ManualClock: SchedulingClock {
    public func nanosecondsUntil(_ deadline: Instant) -> Int64 { 0 }
    public func reached(_ deadline: Instant) { advance(to: deadline) }
    public var passesByItself: Bool { false }
}
