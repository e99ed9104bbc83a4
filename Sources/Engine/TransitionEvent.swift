/// One event of the stream (design "Events"), before encoding. `transition`
/// is the index of the transition in the configuration.
public struct TransitionEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case began, changed, ended, animating, finished, cancelled

        /// Position in `allCases`, for tables indexed by kind.
        public var index: Int {
            switch self {
            case .began: return 0
            case .changed: return 1
            case .ended: return 2
            case .animating: return 3
            case .finished: return 4
            case .cancelled: return 5
            }
        }
    }

    public var kind: Kind
    public var transition: Int
    public var seq: UInt64
    /// Seconds on the input's clock.
    public var time: Double
    public var progress: Double
    public var velocity: Double
    /// `ended` only.
    public var decision: Decision?
    /// `ended` only.
    public var reason: EndReason?
    /// `animating`; and `ended` of a transition with snap points (the point
    /// it settles at).
    public var target: Double?
    /// `ended` of a transition with snap points: its target's index in the list.
    public var index: Int?

    /// `began`/`changed`/`ended` of a transition with `report_position`:
    /// the centroid of its fingers on the screen (0…1 each axis); on
    /// `ended`, where they were last. nil otherwise (and when driven by commands).
    public var position: ScreenPoint?

    public init(kind: Kind, transition: Int, seq: UInt64, time: Double, progress: Double, velocity: Double,
                decision: Decision? = nil, reason: EndReason? = nil, target: Double? = nil,
                position: ScreenPoint? = nil, index: Int? = nil) {
        self.position = position
        self.index = index
        self.kind = kind
        self.transition = transition
        self.seq = seq
        self.time = time
        self.progress = progress
        self.velocity = velocity
        self.decision = decision
        self.reason = reason
        self.target = target
    }
}

/// A point on the screen in the engine's 0…1 units.
public struct ScreenPoint: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
