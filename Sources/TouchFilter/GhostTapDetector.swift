/// `ghost_touches = "quarantine"`: finds the phantom taps some panels make
/// at one place at a fixed period (a known Raspberry Pi panel taps every
/// ~12.9 s) among the short, still taps a panel reports, and says when a
/// new touch-down is one of them.
///
/// A value; no clock, no I/O: the filter feeds it each completed tap —
/// a touch that lifted within `tapDuration` having moved less than
/// `stillness` from where it came down — as its touch-down time (seconds)
/// and place (millimetres on the panel), and asks it about each new touch.
///
/// The rule, exactly:
/// - A pattern is a place and a period P. Two consecutive taps at a place
///   (within `placeTolerance`, 1 mm, of each other), 1 s to 60 s apart
///   (`minimumPeriod`, `maximumPeriod`), make a candidate whose P is their
///   interval. A later tap within 1 mm of the pattern's place (its first
///   tap's) that comes down at last + k·P within `periodTolerance` · P
///   (5 % of P) continues it — k = 1 for its third tap, then k = 1, 2 or 3
///   (so one or two missed taps do not break a confirmed pattern); P
///   becomes the mean of interval/k over its continuations (the last eight
///   weigh), so a slow drift is followed.
/// - Predicted ghost: a touch-down within 1 mm of a candidate's place at
///   the time its next tap is due (above). So the third occurrence is the
///   first one quarantined: two taps give one interval, and a third at the
///   same interval, itself short and still, confirms the pattern. The first
///   and second are forwarded: nothing is known of them yet.
/// - Confirmed: at that third tap; said once (`recordTap` returns the
///   pattern). A pattern with no tap for 3 periods (plus the tolerance) is
///   forgotten: it predicts nothing more and must be seen three times again.
/// - Until confirmed, a place has one candidate: its latest tap, or its
///   latest two. A tap there that does not continue it replaces it (the
///   candidate is then that tap and the one before), so only consecutive
///   taps at a place at one interval confirm a pattern: taps whose
///   intervals differ by more than 5 % never do. A confirmed pattern is not
///   broken by other taps at its place (a person tapping there between
///   ghosts changes nothing).
/// - People: a button tapped by people lands a few millimetres apart, stays
///   down longer than 50 ms, and comes at intervals that differ by more
///   than 5 % (and a person's quick double or triple tap is under the 1 s
///   floor): it is never confirmed.
/// - Memory: at most `capacity` candidates; a new one replaces the one seen
///   least recently (an unconfirmed one before any confirmed one).
public struct GhostTapDetector: Sendable, Equatable {
    /// Seconds a ghost tap lasts at most, from down to lift.
    public static let tapDuration = 0.05
    /// Millimetres a ghost tap moves less than (from where it came down).
    public static let stillness = 1.0
    /// Millimetres between a pattern's place and a tap of it, at most.
    public static let placeTolerance = 1.0
    /// The share of the period by which a tap may be early or late.
    public static let periodTolerance = 0.05
    /// Seconds: shorter intervals are no pattern (people tap that fast).
    public static let minimumPeriod = 1.0
    /// Seconds: longer intervals are no pattern (5 % of them is long enough
    /// for chance to fill; a ghost is expected every few seconds).
    public static let maximumPeriod = 60.0
    /// Periods a pattern survives without a tap (k = 1…3).
    public static let maximumMissed = 3
    /// Candidates kept at most.
    public static let capacity = 16
    /// Intervals the period estimate averages at most (it follows a drift).
    static let averaged = 8

    /// A pattern of ghost taps, as it is logged: where, how often, how many so far.
    public struct Pattern: Sendable, Equatable {
        /// Millimetres on the panel (its first tap's place).
        public var x: Double
        public var y: Double
        /// Seconds between taps.
        public var period: Double
        /// Taps of it seen (3 when it is confirmed).
        public var occurrences: Int
    }

    struct Candidate: Sendable, Equatable {
        var x: Double
        var y: Double
        /// Its latest tap's down time.
        var last: Double
        /// nil while it has one tap.
        var period: Double?
        /// Intervals averaged into `period`.
        var intervals = 0
        var occurrences = 1
        var confirmed: Bool { occurrences >= 3 }

        func isAt(x px: Double, y py: Double) -> Bool {
            let dx = px - x, dy = py - y
            return dx * dx + dy * dy <= GhostTapDetector.placeTolerance * GhostTapDetector.placeTolerance
        }

        /// k if `time` is last + k·P within 5 % of P, else nil: k = 1 for a
        /// candidate's third tap (only the same interval shows a period),
        /// k = 1…3 once it is confirmed.
        func multiple(at time: Double) -> Int? {
            guard let period else { return nil }
            let tolerance = GhostTapDetector.periodTolerance * period
            let most = confirmed ? GhostTapDetector.maximumMissed : 1
            for k in 1...most where abs(time - last - Double(k) * period) <= tolerance {
                return k
            }
            return nil
        }

        /// True once no tap can continue it: 3 periods and the tolerance
        /// passed for a confirmed one; for a candidate, the longest period
        /// and its tolerance.
        func hasLapsed(at time: Double) -> Bool {
            if confirmed, let period {
                return time - last > (Double(GhostTapDetector.maximumMissed) + GhostTapDetector.periodTolerance) * period
            }
            return time - last > (1 + GhostTapDetector.periodTolerance) * GhostTapDetector.maximumPeriod
        }

        var pattern: Pattern { Pattern(x: x, y: y, period: period ?? 0, occurrences: occurrences) }
    }

    private(set) var candidates: [Candidate] = []

    public init() {}

    /// The number of candidates it holds (at most `capacity`).
    public var count: Int { candidates.count }

    /// The confirmed patterns it holds.
    public var confirmed: [Pattern] { candidates.filter(\.confirmed).map(\.pattern) }

    /// The confirmed patterns that still predict taps at `time` (none of
    /// them lapsed: a tap within 3 periods), read only (a lapsed one is
    /// forgotten at the next tap).
    public func confirmed(at time: Double) -> [Pattern] {
        candidates.filter { $0.confirmed && !$0.hasLapsed(at: time) }.map(\.pattern)
    }

    /// True if a touch coming down at `time` at (`x`, `y`) mm is where and
    /// when a pattern's next tap is due (a confirmed one's, or the third
    /// of two taps).
    public func predictsGhost(at time: Double, x: Double, y: Double) -> Bool {
        candidates.contains { $0.isAt(x: x, y: y) && $0.multiple(at: time) != nil }
    }

    /// A completed short, still tap that came down at `time` at (`x`, `y`)
    /// mm (forwarded or quarantined: ghosts keep their pattern going).
    /// Returns the pattern it confirmed, once per pattern.
    public mutating func recordTap(at time: Double, x: Double, y: Double) -> Pattern? {
        guard time.isFinite && x.isFinite && y.isFinite else { return nil }
        candidates.removeAll { $0.hasLapsed(at: time) }
        var matched = false
        var news: Pattern? = nil
        for i in candidates.indices where candidates[i].isAt(x: x, y: y) {
            guard let k = candidates[i].multiple(at: time), let period = candidates[i].period else { continue }
            matched = true
            var c = candidates[i]
            let n = Double(min(c.intervals, Self.averaged - 1))
            c.period = (period * n + (time - c.last) / Double(k)) / (n + 1)
            c.intervals += 1
            c.last = time
            c.occurrences += 1
            if c.occurrences == 3 { news = c.pattern }
            candidates[i] = c
        }
        guard !matched else { return news }
        // No pattern continued: the place's candidate (unconfirmed) becomes
        // its latest tap and this one, if they are a period apart, else this
        // one alone.
        guard let i = candidates.lastIndex(where: { !$0.confirmed && $0.isAt(x: x, y: y) }) else {
            add(Candidate(x: x, y: y, last: time))
            return nil
        }
        let interval = time - candidates[i].last
        var c = Candidate(x: x, y: y, last: time)
        if interval >= Self.minimumPeriod && interval <= Self.maximumPeriod {
            c = Candidate(x: candidates[i].x, y: candidates[i].y, last: time, period: interval, intervals: 1, occurrences: 2)
        }
        candidates[i] = c
        return nil
    }

    /// Forgets every pattern (the panel went: its taps start afresh).
    public mutating func removeAll() { candidates.removeAll() }

    private mutating func add(_ candidate: Candidate) {
        if candidates.count >= Self.capacity {
            let victim = candidates.indices.min { a, b in
                let ca = candidates[a], cb = candidates[b]
                if ca.confirmed != cb.confirmed { return !ca.confirmed }
                return ca.last < cb.last
            }
            if let victim { candidates.remove(at: victim) }
        }
        candidates.append(candidate)
    }
}
