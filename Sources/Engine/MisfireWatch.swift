/// Which gestures went wrong, for `[input] keep_misfires`: the flight
/// recorder keeps a dump of each, by itself, so the misfires of a kiosk in
/// the field can be replayed later (`verify --corpus`). Pure: the caller
/// gives it the engine's events and rejections as they come, with their
/// times (the input's seconds), and writes the dump it asks for.
///
/// A misfire is one of:
/// - **late-cancel**: a gesture released and cancelled after its progress
///   had passed most of the way (the finish threshold, or half way when
///   that is less): the person meant to go on, or the threshold is wrong;
/// - **long-reject**: a candidate turned down for moving sideways after
///   travelling `longTravel` of the screen: a gesture the config missed;
/// - **device-lost**: a panel went away with a gesture under way.
///
/// At most one misfire is kept per `interval` seconds; those in between
/// are counted (`suppressed`), and the next kept one says how many.
public struct MisfireWatch: Sendable {
    /// What went wrong.
    public enum Kind: String, Sendable, CaseIterable {
        case lateCancel = "late-cancel"
        case longReject = "long-reject"
        case deviceLost = "device-lost"
    }

    /// A misfire to keep.
    public struct Misfire: Sendable, Equatable {
        public var kind: Kind
        /// The transition's name.
        public var transition: String
        /// When it happened, on the input's clock (seconds).
        public var time: Double
        /// What the engine decided and at what progress, for the dump's
        /// header: `decision=cancel progress=0.412 peak=0.573`.
        public var detail: String
        /// Misfires not kept since the last kept one (the rate limit).
        public var suppressed: Int
    }

    /// How far (screen units, 0…1) a candidate must have travelled before
    /// its rejection counts as a misfire.
    public static let longTravel = 0.15

    /// The least time between kept misfires, in seconds.
    public let interval: Double
    /// The highest progress of each transition's gesture under way, by index.
    private var peaks: [Int: Double] = [:]
    /// When the last misfire was kept.
    private var lastKept: Double?
    /// Misfires found but not kept since then.
    public private(set) var suppressed = 0

    public init(interval: Double) {
        self.interval = interval
    }

    /// Looks at a batch's events and the engine's explanations of it
    /// (rejections); returns the misfire to keep now, if any (the first of
    /// the batch: one dump holds them all).
    public mutating func observe(_ events: [TransitionEvent], _ explanations: [Explanation],
                                 configuration: EngineConfiguration) -> Misfire? {
        var found: Misfire?
        var others = 0
        func note(_ misfire: Misfire) {
            if found == nil { found = misfire } else { others += 1 }
        }
        let transitions = configuration.transitions
        for explanation in explanations {
            guard case .rejected(let i, let time, .sideways(let sideways, let along)) = explanation,
                  transitions.indices.contains(i) else { continue }
            let travel = max(sideways, along)
            if travel >= Self.longTravel {
                note(Misfire(kind: .longReject, transition: transitions[i].name, time: time,
                             detail: "rejected=sideways sideways=\(Self.text(sideways)) along=\(Self.text(along))", suppressed: 0))
            }
        }
        for event in events where transitions.indices.contains(event.transition) {
            let i = event.transition
            switch event.kind {
            case .began, .changed:
                peaks[i] = max(peaks[i] ?? event.progress, event.progress)
            case .ended:
                let peak = max(peaks.removeValue(forKey: i) ?? event.progress, event.progress)
                guard let decision = event.decision, let reason = event.reason else { continue }
                let detail = "decision=\(decision.rawValue) reason=\(reason.rawValue) progress=\(Self.text(event.progress)) peak=\(Self.text(peak))"
                let name = transitions[i].name
                switch reason {
                case .deviceLost:
                    note(Misfire(kind: .deviceLost, transition: name, time: event.time, detail: detail, suppressed: 0))
                case .released where decision == .cancel && peak >= min(transitions[i].finishThreshold, 0.5):
                    note(Misfire(kind: .lateCancel, transition: name, time: event.time, detail: detail, suppressed: 0))
                case .released, .clientLost, .command, .shutdown, .reload, .palm, .stuck:
                    break
                }
            case .animating, .finished, .cancelled:
                break
            }
        }
        guard var misfire = found else { return nil }
        if let lastKept, misfire.time - lastKept < interval, misfire.time >= lastKept {
            suppressed += 1 + others
            return nil
        }
        misfire.suppressed = suppressed
        // The batch's others were not kept either: the next one says so.
        suppressed = others
        lastKept = misfire.time
        return misfire
    }

    /// Forgets a gesture's peak (a transition of an earlier config gone at a reload).
    public mutating func forget() { peaks.removeAll() }

    static func text(_ value: Double) -> String { Rejection.roundedText(value) }
}
