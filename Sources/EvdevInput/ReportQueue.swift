import SystemSupport
import Engine

/// The hand-over of input reports from an input thread to its host:
/// `push` on the input thread, `take` on the host's thread. The host is told
/// with one `ready` call when reports start waiting, and not again until it
/// has taken them — a host that falls behind gets one larger batch, not a
/// queue of wake-ups. Past `maximumPending` waiting events `push` says
/// "pause" (the input thread stops reading until the next `take`, which
/// calls `resume`).
public final class ReportQueue: @unchecked Sendable {
    private struct State {
        var reports: [InputReport] = []
        var pendingEvents = 0
        /// `ready` was called and `take` has not run since.
        var announced = false
        var paused = false

        mutating func add(_ report: InputReport) {
            if case .events(let events, _) = report { pendingEvents += events.count }
            reports.append(report)
        }
    }

    private let state = Locked(State())
    private let maximumPending: Int
    private let resume: @Sendable () -> Void
    /// Set once, before the first `push`.
    private var ready: (@Sendable () -> Void)?

    public init(maximumPending: Int, resume: @escaping @Sendable () -> Void = {}) {
        self.maximumPending = maximumPending
        self.resume = resume
    }

    /// Who to tell when reports wait; set before the producer starts (if
    /// reports already wait, `ready` is called at once).
    public func setReady(_ ready: @escaping @Sendable () -> Void) {
        self.ready = ready
        let waiting = state.withLock { q -> Bool in
            guard !q.reports.isEmpty else { return false }
            q.announced = true
            return true
        }
        if waiting { ready() }
    }

    /// Queues reports (from the input thread); calls `ready` if the host has
    /// not been told yet. Returns true when the producer should pause.
    @discardableResult
    public func push(_ reports: [InputReport]) -> Bool {
        guard !reports.isEmpty else { return false }
        return enqueue { q in
            for report in reports { q.add(report) }
        }
    }

    /// Queues one report, as `push(_:)` of a list does: a device's read, at
    /// every wake-up, with no list made for it.
    @discardableResult
    public func push(_ report: InputReport) -> Bool {
        enqueue { $0.add(report) }
    }

    private func enqueue(_ add: (inout State) -> Void) -> Bool {
        let limit = maximumPending
        let (announce, pause) = state.withLock { q -> (Bool, Bool) in
            add(&q)
            let announce = !q.announced
            q.announced = true
            if q.pendingEvents >= limit { q.paused = true }
            return (announce, q.paused)
        }
        if announce { ready?() }
        return pause
    }

    /// Moves every waiting report into `reports` (on the host's thread).
    public func take(into reports: inout [InputReport]) {
        let wasPaused = state.withLock { q -> Bool in
            if reports.isEmpty {
                swap(&reports, &q.reports)
            } else {
                reports.append(contentsOf: q.reports)
                q.reports.removeAll(keepingCapacity: true)
            }
            q.pendingEvents = 0
            q.announced = false
            let paused = q.paused
            q.paused = false
            return paused
        }
        if wasPaused { resume() }
    }

    /// Whether the producer should not read now.
    public var isPaused: Bool { state.withLock { $0.paused } }
}
