/// Where an interaction's end goes: its decision and the progress the
/// completion animation settles at; for a transition with snap points, the
/// point (its index), the gesture's start point s₀, and the flick's
/// projection p* when it was one.
public struct Ending: Sendable, Equatable {
    public var decision: Decision
    public var target: Double
    /// The snap point's index (nil without snap points).
    public var index: Int?
    /// s₀'s index (nil without snap points).
    public var start: Int?
    /// p*, when a flick was projected.
    public var projected: Double?
    /// A flick whose projection fell short of the next point went on to it.
    public var leftStart: Bool

    public init(decision: Decision, target: Double, index: Int? = nil, start: Int? = nil,
                projected: Double? = nil, leftStart: Bool = false) {
        self.decision = decision
        self.target = target
        self.index = index
        self.start = start
        self.projected = projected
        self.leftStart = leftStart
    }

    /// Finish (to 1) or cancel (to 0): a transition without snap points.
    public static func of(_ decision: Decision) -> Ending {
        Ending(decision: decision, target: decision == .finish ? 1 : 0)
    }

    /// Settling on point `index` of `points`, for a gesture that began at `start`.
    public static func snap(to index: Int, of points: SnapPoints, start: Int) -> Ending {
        Ending(decision: .snap, target: points.points[index], index: index, start: start)
    }

    /// Whether settling counts as finished (every snap and a finish) or cancelled.
    public var finishes: Bool {
        switch decision {
        case .finish, .snap: return true
        case .cancel: return false
        }
    }
}
