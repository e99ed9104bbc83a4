/// When to try again to open a node that just appeared but refused us
/// (`EACCES`): udev applies the input group's mode and the seat's ACL a
/// moment after the kernel creates the node. Retries back off from
/// `firstDelay`, doubling up to `maximumDelay`, and stop `giveUpAfter`
/// seconds after the node appeared (then only a change of the node's
/// attributes, which inotify reports, brings another attempt).
public struct AccessRetryPolicy: Sendable, Equatable {
    public var firstDelay: Double
    public var maximumDelay: Double
    public var giveUpAfter: Double

    public init(firstDelay: Double = 0.05, maximumDelay: Double = 1.0, giveUpAfter: Double = 10.0) {
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
        self.giveUpAfter = giveUpAfter
    }

    /// The delay before retry number `attempt` (0 for the first retry),
    /// `elapsed` seconds after the node appeared; nil when it is time to
    /// give up. Never schedules past the give-up time.
    public func delay(beforeRetry attempt: Int, elapsed: Double) -> Double? {
        guard attempt >= 0, elapsed >= 0, elapsed < giveUpAfter else { return nil }
        var d = firstDelay
        var n = 0
        while n < attempt && d < maximumDelay {
            d *= 2
            n += 1
        }
        return min(d, maximumDelay, giveUpAfter - elapsed)
    }
}
