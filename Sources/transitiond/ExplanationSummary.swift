import Engine

/// What a whole replay's explanations add up to, for when no transition
/// began: `replay --fast --explain` ends with these lines and the empty
/// `--plot` shows them, so both say why in the same words:
///
/// ```
/// no transition began: 3 touch-downs
/// back: none of the 3 touch-downs within the left edge margin 0.05 (nearest at x = 0.31)
/// close: pinch 'close' takes 2 fingers; at most 1 was down
/// ```
///
/// A value fed the explanations in order; no I/O.
struct ExplanationSummary {
    let configuration: EngineConfiguration
    private(set) var touchDowns = 0
    private(set) var anyBegan = false
    private var tracks: [Int: Track] = [:]

    /// What one transition made of the replay's touch-downs.
    private struct Track {
        var candidates = 0
        var rejections = RejectionGroups()
        /// The most contacts free of other gestures, and on the panel, at a
        /// touch-down it did not look at for want of fingers.
        var mostFree: Int?
        var mostDown = 0
        var boundTo: String?
    }

    init(configuration: EngineConfiguration) {
        self.configuration = configuration
    }

    mutating func add(_ explanation: Explanation) {
        switch explanation {
        case .touchDown:
            touchDowns += 1
        case .candidate(let i, _):
            tracks[i, default: Track()].candidates += 1
        case .rejected(let i, _, let why):
            tracks[i, default: Track()].rejections.add(why)
        case .ignored(let i, _, let why):
            switch why {
            case .tooFewContacts(let free, let down, _):
                tracks[i, default: Track()].mostFree = max(tracks[i]?.mostFree ?? 0, free)
                tracks[i, default: Track()].mostDown = max(tracks[i]?.mostDown ?? 0, down)
            case .waitingForLift:
                break
            case .otherDevice(let device):
                tracks[i, default: Track()].boundTo = device
            }
        case .decided:
            anyBegan = true
        }
    }

    /// Why nothing began: a line for the replay, then one per transition
    /// (`transition` its index); empty when something began.
    func whyNothingBegan() -> [(transition: Int?, text: String)] {
        guard !anyBegan else { return [] }
        guard touchDowns > 0 else { return [(nil, "no transition began: the recordings have no touch-down")] }
        var lines: [(transition: Int?, text: String)] = [(nil, "no transition began: \(Self.count(touchDowns, "touch-down"))")]
        for (i, spec) in configuration.transitions.enumerated() {
            if let reason = reason(i, spec) { lines.append((i, "\(spec.name): \(reason)")) }
        }
        return lines
    }

    /// Why transition `i` did not begin, from what it said at each touch-down.
    private func reason(_ i: Int, _ spec: TransitionSpec) -> String? {
        guard spec.enabled else { return "it is disabled" }
        let track = tracks[i] ?? Track()
        if !track.rejections.isEmpty { return track.rejections.text(touchDowns: touchDowns) }
        if track.candidates > 0 {
            return "its candidate never travelled the activation \(Rejection.roundedText(spec.activation))"
        }
        if let device = track.boundTo { return Disregard.otherDevice(device).text }
        if let free = track.mostFree {
            let fingers = spec.gesture.fingers
            let held = free < track.mostDown ? " free of other gestures" : ""
            return "\(spec.gesture.name) '\(spec.name)' takes \(fingers) \(Disregard.fingers(fingers)); at most \(free) \(free == 1 ? "was" : "were") down\(held)"
        }
        return nil
    }

    /// "1 touch-down", "3 touch-downs".
    static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }
}
