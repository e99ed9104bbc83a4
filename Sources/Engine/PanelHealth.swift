/// One panel's health, as a value: how fast it reports while a contact
/// moves, how even its reports are, and what went wrong with its input
/// (`SYN_DROPPED` resyncs, ghost taps, stuck contacts). No I/O and no
/// clock: each frame brings its own time (seconds on the input's clock).
///
/// The report rate is measured on the intervals between consecutive frames
/// in which a contact moved (a contact of the frame before is still down
/// at another position), while contacts stay down: a frame without
/// contacts ends the run (the time nobody touches the panel is no
/// interval), and an interval longer than `Settings.longestInterval` is a
/// finger at rest, not a report, so it is left out. The last
/// `Settings.window` intervals count: the rates are 1 ÷ their median
/// (`medianRate`) and 1 ÷ their 95th percentile (`p5Rate`, the rate the
/// panel keeps 95 % of the time); the jitter is their interquartile range
/// (75th − 25th percentile, in milliseconds). Percentiles interpolate
/// linearly between the sorted intervals.
///
/// Judged once `Settings.minimumSamples` intervals are in the window, and
/// then every `judgeEvery`-th interval (the window is also kept sorted, an
/// insertion and a removal per interval, so a judgement sorts nothing): the
/// panel is `degraded` when the median rate is below `minReportRate`, and
/// healthy again when it reaches `minReportRate × Settings.recovery` (a
/// panel near the limit does not flap). `frame` says when that changes, so
/// the caller logs each change once.
public struct PanelHealth: Sendable, Equatable {
    public struct Settings: Sendable, Equatable {
        /// `[input] min_report_rate` (Hz).
        public var minReportRate: Double
        /// How many recent intervals count.
        public var window: Int
        /// How many intervals it takes to judge.
        public var minimumSamples: Int
        /// The longest interval (seconds) counted as a report interval.
        public var longestInterval: Double
        /// A degraded panel is healthy again at `minReportRate × recovery`.
        public var recovery: Double

        public init(minReportRate: Double = 50, window: Int = 128, minimumSamples: Int = 32,
                    longestInterval: Double = 0.25, recovery: Double = 1.1) {
            self.minReportRate = minReportRate
            self.window = max(1, window)
            self.minimumSamples = max(1, minimumSamples)
            self.longestInterval = longestInterval
            self.recovery = recovery
        }
    }

    /// What the caller must do after a frame.
    public enum Change: Sendable, Equatable {
        /// Nothing.
        case none
        /// The panel just became degraded (log it once).
        case degraded(Report)
        /// A degraded panel reports fast enough again (log it once).
        case recovered(Report)
    }

    /// The health as `state` and metrics say it.
    public struct Report: Sendable, Equatable {
        /// Intervals in the window.
        public var samples: Int
        /// Hz: 1 ÷ the median interval; nil before any interval.
        public var medianRate: Double?
        /// Hz: 1 ÷ the 95th percentile interval; nil before any interval.
        public var p5Rate: Double?
        /// The intervals' interquartile range, in milliseconds; nil before any interval.
        public var jitterMilliseconds: Double?
        /// Judged degraded (see `PanelHealth`).
        public var degraded: Bool
        public var resyncs: Int
        public var ghostTouches: Int
        public var stuckContacts: Int

        public init(samples: Int = 0, medianRate: Double? = nil, p5Rate: Double? = nil,
                    jitterMilliseconds: Double? = nil, degraded: Bool = false, resyncs: Int = 0,
                    ghostTouches: Int = 0, stuckContacts: Int = 0) {
            self.samples = samples
            self.medianRate = medianRate
            self.p5Rate = p5Rate
            self.jitterMilliseconds = jitterMilliseconds
            self.degraded = degraded
            self.resyncs = resyncs
            self.ghostTouches = ghostTouches
            self.stuckContacts = stuckContacts
        }
    }

    public var settings: Settings
    /// The window: a ring of the last intervals (seconds), oldest at `next` once full.
    private var intervals: [Double] = []
    private var next = 0
    /// The same intervals, ascending.
    private var sorted: [Double] = []
    /// Intervals added since the last judgement: the live path judges every
    /// `judgeEvery`-th, not on every frame.
    private var sinceJudged = 0
    static let judgeEvery = 8
    /// The last frame's contacts (to see which moved), and the time of the
    /// last frame in which one moved, while contacts stayed down.
    private var previous: [Contact] = []
    private var lastMove: Double?
    public private(set) var degraded = false
    public private(set) var resyncs = 0
    public private(set) var ghostTouches = 0
    public private(set) var stuckContacts = 0

    public init(settings: Settings = Settings()) {
        self.settings = settings
        intervals.reserveCapacity(settings.window)
        sorted.reserveCapacity(settings.window)
    }

    // MARK: Inputs

    /// A frame of the panel.
    public mutating func frame(_ touches: TouchFrame) -> Change {
        frame(at: touches.time, contactsDown: !touches.contacts.isEmpty,
              moved: Self.moved(from: previous, to: touches.contacts), contacts: touches.contacts)
    }

    /// A frame at `time`: whether contacts are down and whether one moved.
    public mutating func frame(at time: Double, contactsDown: Bool, moved: Bool) -> Change {
        frame(at: time, contactsDown: contactsDown, moved: moved, contacts: nil)
    }

    private mutating func frame(at time: Double, contactsDown: Bool, moved: Bool, contacts: [Contact]?) -> Change {
        previous = contacts ?? []
        guard contactsDown else {
            lastMove = nil
            return .none
        }
        guard moved else { return .none }
        defer { lastMove = time }
        guard let last = lastMove, time > last, time - last <= settings.longestInterval else { return .none }
        add(time - last)
        sinceJudged += 1
        guard sinceJudged >= Self.judgeEvery || intervals.count == settings.minimumSamples else { return .none }
        sinceJudged = 0
        return judge()
    }

    /// A `SYN_DROPPED` resync.
    public mutating func resynced() { resyncs += 1 }

    /// Ghost taps quarantined (filter mode).
    public mutating func ghostTouchesQuarantined(_ count: Int) { ghostTouches += count }

    /// Contacts ended as stuck.
    public mutating func contactsStuck(_ count: Int) {
        stuckContacts += count
        lastMove = nil
        previous = []
    }

    /// The settings change (a reload): the window stays, the judgement follows the new limit.
    public mutating func update(_ settings: Settings) -> Change {
        let window = intervals.count == settings.window ? intervals : Array(ordered.suffix(settings.window))
        self.settings = settings
        intervals = window
        sorted = window.sorted()
        next = 0
        return judge()
    }

    // MARK: What it says

    public var report: Report {
        Report(samples: sorted.count,
               medianRate: Self.percentile(sorted, 0.5).map { 1 / $0 },
               p5Rate: Self.percentile(sorted, 0.95).map { 1 / $0 },
               jitterMilliseconds: Self.percentile(sorted, 0.75).flatMap { high in
                   Self.percentile(sorted, 0.25).map { (high - $0) * 1000 }
               },
               degraded: degraded, resyncs: resyncs, ghostTouches: ghostTouches, stuckContacts: stuckContacts)
    }

    /// The intervals in the window, oldest first.
    var ordered: [Double] {
        intervals.count < settings.window ? intervals : Array(intervals[next...] + intervals[..<next])
    }

    // MARK: The rules

    private mutating func add(_ interval: Double) {
        if intervals.count < settings.window {
            intervals.append(interval)
        } else {
            sorted.remove(at: Self.firstIndex(notBelow: intervals[next], in: sorted))
            intervals[next] = interval
            next = (next + 1) % settings.window
        }
        sorted.insert(interval, at: Self.firstIndex(notBelow: interval, in: sorted))
    }

    /// Where `value` goes in ascending `values` (its first place when it is there).
    private static func firstIndex(notBelow value: Double, in values: [Double]) -> Int {
        var low = 0, high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private mutating func judge() -> Change {
        guard intervals.count >= settings.minimumSamples else { return .none }
        let report = self.report
        guard let median = report.medianRate else { return .none }
        if !degraded && median < settings.minReportRate {
            degraded = true
            var now = report
            now.degraded = true
            return .degraded(now)
        }
        if degraded && median >= settings.minReportRate * settings.recovery {
            degraded = false
            var now = report
            now.degraded = false
            return .recovered(now)
        }
        return .none
    }

    /// Whether a contact of `before` is in `after` at another position.
    static func moved(from before: [Contact], to after: [Contact]) -> Bool {
        for contact in after {
            for old in before where old.id == contact.id {
                if old.x != contact.x || old.y != contact.y { return true }
            }
        }
        return false
    }

    /// The `q` quantile of ascending `sorted` (linear between neighbours); nil when empty.
    static func percentile(_ sorted: [Double], _ q: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let position = q * Double(sorted.count - 1)
        let low = Int(position.rounded(.down))
        let high = min(low + 1, sorted.count - 1)
        return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
    }
}
