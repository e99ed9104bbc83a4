/// How a client's clock relates to the daemon's, estimated as NTP does
/// (issue "Touch to frame, measured in the field", step 1): the client
/// notes when it asked the daemon for its time (t0, its own clock), the
/// daemon answers with its time (ts), the client notes when the answer came
/// (t1). Assuming the answer was made half-way, the daemon's clock is ahead
/// by ts − (t0 + t1) / 2, within half the round trip (t1 − t0) / 2 either way,
/// however the trip splits between the two ways. The exchange with the least
/// round trip among the recent ones (the last `window`, none older than
/// `maximumAge`: the clocks drift apart) wins. A value; pure: the caller
/// gives the times.
public struct ClockOffset: Sendable, Equatable {
    /// Seconds an exchange counts for (the clocks drift apart).
    public let maximumAge: Double
    /// How many recent exchanges are kept to choose from.
    public let window: Int

    /// One exchange: when it ended (client time), the offset it gives and half its round trip.
    private struct Exchange: Sendable, Equatable {
        var end: Double
        var offset: Double
        var half: Double
    }
    private var recent: [Exchange] = []
    /// The winner among `recent`.
    private var best: Exchange?

    /// The daemon's clock minus the client's, in seconds (nil before the first exchange).
    public var offset: Double? { best?.offset }
    /// Half the winning exchange's round trip: the most the offset can be off by
    /// (but for the drift since).
    public var uncertainty: Double { best?.half ?? .infinity }

    public init(maximumAge: Double = 60, window: Int = 16) {
        self.maximumAge = maximumAge
        self.window = max(1, window)
    }

    /// One exchange: sent at `t0`, answered with the daemon's time `ts`,
    /// received at `t1` (t0 and t1 on the client's clock). An exchange whose
    /// times are not finite, or that ends before it began, is ignored.
    /// Returns whether it became the estimate.
    @discardableResult
    public mutating func add(sent t0: Double, daemon ts: Double, received t1: Double) -> Bool {
        guard t0.isFinite, ts.isFinite, t1.isFinite, t1 >= t0 else { return false }
        let exchange = Exchange(end: t1, offset: ts - (t0 + t1) / 2, half: (t1 - t0) / 2)
        recent.removeAll { t1 - $0.end > maximumAge }
        if recent.count == window { recent.removeFirst() }
        recent.append(exchange)
        best = recent.min { $0.half < $1.half }
        return best == exchange
    }

    /// The daemon's time at client time `t` (nil before the first exchange).
    public func daemonTime(at t: Double) -> Double? {
        offset.map { t + $0 }
    }

    /// Whether a new exchange is due: none yet, or the newest is older than
    /// `interval` seconds.
    public func wantsExchange(at t: Double, interval: Double = 10) -> Bool {
        guard let newest = recent.last else { return true }
        return t - newest.end > interval
    }
}
