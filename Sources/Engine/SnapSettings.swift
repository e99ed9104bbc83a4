/// A transition's resting states (`snap_points` or `pages`, and the keys
/// that go with them): where it may rest, how a gesture may move it, and
/// how its release is projected. A transition without them runs from 0 to
/// 1 and back (finish or cancel), as before.
public struct SnapSettings: Sendable, Equatable {
    public var points: SnapPoints
    /// The gesture may drive it either way along its axis; an edge-pan that
    /// rests away from its first point may then start anywhere on the screen.
    public var bidirectional: Bool
    /// A gesture may reach any point, not only those next to where it began.
    public var longSwipes: Bool
    /// iOS's deceleration rate for the flick's projection (0.998 normal, 0.99 fast).
    public var decelerationRate: Double
    public var overshoot: Overshoot

    public init(points: SnapPoints, bidirectional: Bool = false, longSwipes: Bool = false,
                decelerationRate: Double = SnapPoints.normalDeceleration, overshoot: Overshoot = .clamp) {
        self.points = points
        self.bidirectional = bidirectional
        self.longSwipes = longSwipes
        self.decelerationRate = decelerationRate
        self.overshoot = overshoot
    }
}

/// What a gesture shows past the first and the last snap point.
public enum Overshoot: String, Sendable, Equatable, CaseIterable {
    /// Progress stops at the end.
    case clamp
    /// Travel beyond the end is shown damped, as iOS's scroll views do.
    case rubberBand = "rubber-band"

    /// iOS's rubber-band constant.
    public static let rubberBandConstant = 0.55

    /// How far past an end `excess` progress of travel is shown (both in
    /// progress, where the transition's distance is 1): (1 − 1 / (x·c + 1)),
    /// iOS's f(x) = (1 − 1 / (x·c / D + 1))·D with D the distance.
    public static func rubberBand(_ excess: Double) -> Double {
        1 - 1 / (excess * rubberBandConstant + 1)
    }
}

/// The progress a gesture's travel may show: within `low…high`, beyond an
/// end only damped where that end is the first or last snap point and the
/// transition rubber-bands. Without snap points, 0…1.
public struct ProgressLimits: Sendable, Equatable {
    public var low: Double
    public var high: Double
    public var rubberLow: Bool
    public var rubberHigh: Bool

    public static let unit = ProgressLimits(low: 0, high: 1, rubberLow: false, rubberHigh: false)

    public init(low: Double, high: Double, rubberLow: Bool, rubberHigh: Bool) {
        self.low = low
        self.high = high
        self.rubberLow = rubberLow
        self.rubberHigh = rubberHigh
    }

    /// The limits of a gesture that began at point `start`.
    public init(_ snap: SnapSettings, start: Int) {
        let range = snap.points.bounds(from: start, longSwipes: snap.longSwipes)
        let rubber = snap.overshoot == .rubberBand
        self.init(low: snap.points.points[range.lowerBound], high: snap.points.points[range.upperBound],
                  rubberLow: rubber && range.lowerBound == 0,
                  rubberHigh: rubber && range.upperBound == snap.points.points.count - 1)
    }

    /// The progress shown for raw progress `p`.
    @inline(__always)
    public func apply(_ p: Double) -> Double {
        if p < low { return rubberLow ? low - Overshoot.rubberBand(low - p) : low }
        if p > high { return rubberHigh ? high + Overshoot.rubberBand(p - high) : high }
        return p
    }
}
