/// Why the engine did what it did, for people tuning a config
/// (`replay --explain`, the plot, the live view): which transitions looked
/// at a touch-down and why each passed over it or dropped its candidate, and
/// for each decision whether a flick or the threshold made it. Collected
/// only when asked (`TransitionEngine.explanations`), so it costs nothing
/// otherwise.
public enum Explanation: Sendable, Equatable {
    /// A contact touched down at (x, y), screen units, on panel `source`.
    case touchDown(time: Double, source: Int, x: Double, y: Double)
    /// Transition `transition` made the free contacts a candidate.
    case candidate(transition: Int, time: Double)
    /// Transition `transition` passed over a touch-down, or dropped its candidate.
    case rejected(transition: Int, time: Double, why: Rejection)
    /// Transition `transition` did not look at a touch-down at all, and why.
    case ignored(transition: Int, time: Double, why: Disregard)
    /// An interaction ended with `decision`, and what decided it; `peak` is
    /// the highest progress it reached.
    case decided(transition: Int, time: Double, decision: Decision, cause: DecisionCause,
                 progress: Double, velocity: Double, peak: Double)
}

/// Why a transition did not take a touch (design "Gestures": candidate,
/// reject), with the numbers that decided it.
public enum Rejection: Sendable, Equatable {
    /// The touch-down was not within the edge margin (`at`: its x for the
    /// left and right edges, its y for the top and bottom).
    case outsideEdge(edge: Edge, at: Double, margin: Double)
    /// The touch-down was at the edge but outside its `edge_range` (`at`:
    /// its place along the edge).
    case outsideRange(edge: Edge, at: Double, range: EdgeRange)
    /// More contacts than the gesture's fingers.
    case tooManyContacts(count: Int, fingers: Int)
    /// A contact lifted before the gesture had travelled its activation.
    case liftedBeforeActivation
    /// The contacts were replaced before activation.
    case contactsChanged
    /// The candidate moved more sideways than along the gesture.
    case sideways(sideways: Double, along: Double)
    /// Its animation was running and it is not interruptible.
    case notInterruptible
    /// It is turned off (`enabled = false`, or the `enable` command).
    case disabled
    /// A contact touched down at (x, y), inside an exclusion region the UI
    /// declared (the `exclude` command).
    case excluded(x: Double, y: Double)

    /// One line for people: "touch-down at x = 0.31, outside the left edge
    /// margin 0.05", "moved 0.04 sideways before 0.02 along".
    public var text: String {
        switch self {
        case .outsideEdge(let edge, let at, let margin):
            let axis = edge == .left || edge == .right ? "x" : "y"
            return "touch-down at \(axis) = \(Self.round(at)), outside the \(edge.rawValue) edge margin \(Self.round(margin))"
        case .outsideRange(let edge, let at, let range):
            let axis = edge == .left || edge == .right ? "y" : "x"
            return "touch-down at \(axis) = \(Self.round(at)), outside the \(edge.rawValue) edge's range \(Self.round(range.start))…\(Self.round(range.end))"
        case .tooManyContacts(let count, let fingers):
            return "\(count) contacts down, the gesture takes \(fingers)"
        case .liftedBeforeActivation:
            return "lifted before the activation travel"
        case .contactsChanged:
            return "the contacts changed before activation"
        case .sideways(let sideways, let along):
            return "moved \(Self.round(sideways)) sideways before \(Self.round(along)) along"
        case .notInterruptible:
            return "its animation was running and it is not interruptible"
        case .disabled:
            return "it is disabled"
        case .excluded(let x, let y):
            return "touch-down at (\(Self.round(x)), \(Self.round(y))), inside an exclusion region the UI declared"
        }
    }

    /// Rounded to 3 decimals for reading (0.0312 → "0.031").
    public static func roundedText(_ value: Double) -> String { round(value) }

    static func round(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let scaled = (value * 1000).rounded() / 1000
        var text = "\(scaled)"
        if text.hasSuffix(".0") { text.removeLast(2) }
        if text == "-0" { text = "0" }
        return text
    }
}

/// What decided an interaction's end.
public enum DecisionCause: Sendable, Equatable {
    /// Released at least as fast as the flick velocity: its direction decided.
    case flick(velocity: Double, flickVelocity: Double)
    /// Released slower: the progress against the finish threshold decided.
    case threshold(progress: Double, finishThreshold: Double)
    /// Not a release (a lost device, a command, shutdown): a cancel, no rule.
    case noRule(EndReason)
    /// Snap points, released slower than the flick velocity: the point nearest.
    case nearestPoint(progress: Double, target: Double)
    /// Snap points, a flick: its projection p* and the point it led to
    /// (`leftStart`: p* fell short of the next point, which it went on to).
    case projected(velocity: Double, projected: Double, target: Double, start: Double, leftStart: Bool)

    /// "a flick at 1.8/s (flick velocity 1.0)", "progress 0.66 past the
    /// threshold 0.5", "no rule: device-lost".
    public var text: String {
        switch self {
        case .flick(let v, let f):
            return "a flick at \(Rejection.round(v))/s (flick velocity \(Rejection.round(f)))"
        case .threshold(let p, let t):
            return "progress \(Rejection.round(p)) \(p >= t ? "at or past" : "short of") the threshold \(Rejection.round(t))"
        case .noRule(let reason):
            return "no rule: \(reason.rawValue)"
        case .nearestPoint(let p, let target):
            return "progress \(Rejection.round(p)) nearest the point \(Rejection.round(target))"
        case .projected(let v, let projected, let target, let start, let leftStart):
            let flick = "a flick at \(Rejection.round(v))/s projected to \(Rejection.round(projected))"
            if leftStart { return flick + ", past \(Rejection.round(start)): on to \(Rejection.round(target))" }
            if target == start { return flick + ": back to \(Rejection.round(target))" }
            return flick + ": nearest \(Rejection.round(target))"
        }
    }

    /// The cause of a decision by the rules of design "Engine rules".
    static func of(progress: Double, velocity: Double, reason: EndReason, ending: Ending,
                   spec: TransitionSpec) -> DecisionCause {
        guard reason == .released else { return .noRule(reason) }
        if let snap = spec.snap, let start = ending.start {
            guard let projected = ending.projected else { return .nearestPoint(progress: progress, target: ending.target) }
            return .projected(velocity: velocity, projected: projected, target: ending.target,
                              start: snap.points.points[start], leftStart: ending.leftStart)
        }
        if abs(velocity) >= spec.flickVelocity { return .flick(velocity: velocity, flickVelocity: spec.flickVelocity) }
        return .threshold(progress: progress, finishThreshold: spec.finishThreshold)
    }
}

extension GestureKind {
    /// Why a touch-down at (x, y) may not start this gesture; nil when it may.
    public func touchDownRejection(x: Double, y: Double) -> Rejection? {
        switch self {
        case .edgePan(let edge, _, let margin, let range):
            let distance: Double, along: Double
            switch edge {
            case .left: (distance, along) = (x, y)
            case .right: (distance, along) = (1 - x, y)
            case .top: (distance, along) = (y, x)
            case .bottom: (distance, along) = (1 - y, x)
            }
            if !(distance <= margin) {
                return .outsideEdge(edge: edge, at: edge == .left || edge == .right ? x : y, margin: margin)
            }
            if !range.contains(along) { return .outsideRange(edge: edge, at: along, range: range) }
            return nil
        case .swipe, .pinch:
            return nil
        }
    }
}
