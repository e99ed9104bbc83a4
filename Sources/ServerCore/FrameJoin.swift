import ServerPorts
import WireProtocol

/// Touch to frame: which input each event line came from, and the clients'
/// reports of presented frames joined to it (issue "Touch to frame,
/// measured in the field"). The server notes, for each event it sends
/// because of input, the `CLOCK_MONOTONIC` time of the newest input event
/// behind it (in a paced replay, when its step was due); a client's report
/// "the line with seq N was presented at T" (T on the daemon's clock) then
/// makes the sample T − that time. A value; pure: the caller says what
/// time it is.
///
/// Reports are cheap and bounded: only the last `capacity` seqs are kept
/// (a report of an older one, of an animation frame's or of one never sent
/// joins nothing), a client's seqs count once each and only rising (a frame
/// that shows no newer line is no new sample), at most `perSecond` samples
/// a second per client (a token bucket), and a sample is clipped to
/// 0…`longest` seconds: a client whose clock estimate is off, or that lies,
/// skews its own samples, no more.
public struct FrameJoin: Sendable {
    public let capacity: Int
    public let perSecond: Double
    public let longest: Double

    /// The input time (ns) of seq `s` at `times[s % capacity]`, if `seqs` there is `s`.
    private var seqs: [UInt64]
    private var times: [Int64]
    /// Per client: its newest seq reported, and its bucket of samples.
    private var clients: [ClientID: Budget] = [:]

    private struct Budget: Sendable {
        var newest: UInt64 = 0
        var tokens: Double
        var refilled: Int64
    }

    public init(capacity: Int = 4096, perSecond: Double = 240, longest: Double = 10) {
        self.capacity = max(1, capacity)
        self.perSecond = perSecond
        self.longest = longest
        seqs = Array(repeating: 0, count: self.capacity)
        times = Array(repeating: 0, count: self.capacity)
    }

    /// Event `seq` was made by input whose newest event was at `inputTime`
    /// (ns, `CLOCK_MONOTONIC`).
    public mutating func note(seq: UInt64, inputTime: Int64) {
        let k = Int(seq % UInt64(capacity))
        seqs[k] = seq
        times[k] = inputTime
    }

    /// The touch-to-frame samples (seconds) of a client's reports at `now`
    /// (ns, `CLOCK_MONOTONIC`).
    public mutating func join(_ reports: [FrameReport], from client: ClientID, now: Int64) -> [Double] {
        var budget = clients[client] ?? Budget(tokens: perSecond, refilled: now)
        let elapsed = Double(max(0, now - budget.refilled)) / 1e9
        budget.tokens = min(perSecond, budget.tokens + elapsed * perSecond)
        budget.refilled = now
        var samples: [Double] = []
        for report in reports where report.seq > budget.newest && budget.tokens >= 1 {
            let k = Int(report.seq % UInt64(capacity))
            guard seqs[k] == report.seq else { continue }
            budget.newest = report.seq
            budget.tokens -= 1
            let sample = report.presented - Double(times[k]) / 1e9
            samples.append(min(max(sample, 0), longest))
        }
        clients[client] = budget
        return samples
    }

    /// A client is gone: its budget goes with it.
    public mutating func forget(_ client: ClientID) {
        clients[client] = nil
    }
}
