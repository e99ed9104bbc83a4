import WireProtocol

/// The last minute of one latency's samples, for `state`'s `latency`: its
/// median and 95th percentile. Bounded: at most `capacity` samples (the
/// oldest go first), none older than `span`. A value; pure: the caller
/// says what time it is.
public struct LatencyWindow: Sendable {
    public let span: Int64
    public let capacity: Int
    /// (when, seconds), oldest first.
    private var samples: [(at: Int64, seconds: Double)] = []
    private var first = 0

    public init(span: Double = 60, capacity: Int = 4096) {
        self.span = Int64(span * 1e9)
        self.capacity = max(1, capacity)
    }

    /// A sample of `seconds`, taken at `now` (ns, `CLOCK_MONOTONIC`).
    public mutating func add(_ seconds: Double, at now: Int64) {
        guard seconds.isFinite else { return }
        samples.append((now, seconds))
        if samples.count - first > capacity { first += 1 }
        // Drop what was forgotten now and then, not on every sample.
        if first >= capacity { samples.removeFirst(first); first = 0 }
    }

    /// The median and 95th percentile of the last `span` before `now`
    /// (nearest rank); nil without samples.
    public func summary(at now: Int64) -> LatencyStatus.Summary? {
        var recent = samples[first...].filter { now - $0.at <= span }.map(\.seconds)
        guard !recent.isEmpty else { return nil }
        recent.sort()
        func rank(_ q: Double) -> Double { recent[min(recent.count - 1, max(0, Int((q * Double(recent.count)).rounded(.up)) - 1))] }
        return LatencyStatus.Summary(p50: rank(0.5), p95: rank(0.95), samples: recent.count)
    }
}
