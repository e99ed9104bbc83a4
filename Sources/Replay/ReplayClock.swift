#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The clock a paced replay waits on. Injected so that tests (and `--fast`)
/// run the same schedule on a virtual clock.
public protocol ReplayClock {
    /// Seconds on this clock.
    func now() -> Double
    /// Returns at (or after) `time` on this clock.
    mutating func sleep(until time: Double)
}

/// The real monotonic clock (`CLOCK_MONOTONIC`).
public struct MonotonicClock: ReplayClock {
    public init() {}

    public func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    public mutating func sleep(until time: Double) {
        while true {
            let remaining = time - now()
            if remaining <= 0 { return }
            var ts = timespec(tv_sec: Int(remaining), tv_nsec: Int((remaining - Double(Int(remaining))) * 1e9))
            _ = nanosleep(&ts, nil)
        }
    }
}

/// A clock that jumps to whatever time it is asked to wait for, and records
/// the waits: `--fast`, and the tests of pacing.
public struct VirtualClock: ReplayClock {
    public private(set) var current: Double
    public private(set) var waits: [Double] = []

    public init(start: Double = 0) { current = start }

    public func now() -> Double { current }

    public mutating func sleep(until time: Double) {
        waits.append(time)
        if time > current { current = time }
    }
}

/// Maps replay time (the recording's seconds) to a clock at a speed:
/// replay time `t` is due at `start + t ÷ speed` on the clock.
public struct ReplayPacer<Clock: ReplayClock> {
    public var clock: Clock
    public let speed: Double
    private let start: Double

    public init(clock: Clock, speed: Double) {
        self.clock = clock
        self.speed = speed
        self.start = clock.now()
    }

    /// Waits until replay time `t` is due.
    public mutating func wait(until t: Double) {
        clock.sleep(until: start + t / speed)
    }
}
