
/// A clock whose time moves only when it is told to (`advance(to:)`) or
/// when something sleeps on it (the sleep jumps to its deadline at once):
/// `replay --fast`, and tests that drive time themselves. Same schedule as
/// the real clock, no waiting.
public final class ManualClock: Clock, Sendable {
    public typealias Instant = MonotonicClock.Instant

    private let current: Locked<Instant>

    public init(start: Instant = Instant(nanoseconds: 0)) {
        current = Locked(start)
    }

    public var now: Instant { current.withLock { $0 } }

    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Moves the time forward to `instant` (never back).
    public func advance(to instant: Instant) {
        current.withLock { if instant > $0 { $0 = instant } }
    }

    /// Moves the time forward by `duration`.
    public func advance(by duration: Duration) {
        current.withLock { $0 = $0.advanced(by: max(.zero, duration)) }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        advance(to: deadline)
    }
}
