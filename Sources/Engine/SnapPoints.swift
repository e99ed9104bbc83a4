/// A transition's snap points (`snap_points`, or `pages = N`): the progress
/// values it may rest at, and the rule that picks where a released gesture
/// goes (issue "Snap points, paging and resting states"). A value; pure:
/// the caller gives the progress, the velocity and where the gesture began.
///
/// The release rule, with p and v the progress and velocity (progress/s)
/// at release and s₀ the point the gesture started from:
/// - bounds: the points next to s₀ (one page per gesture), or the first
///   and the last with `longSwipes`;
/// - |v| below the flick velocity: the point nearest p within the bounds;
/// - else p is projected as iOS projects a scroll view's flick (Apple's
///   *Designing Fluid Interfaces*): p* = p + (v / 1000) · d / (1 − d), d
///   the deceleration rate, clamped to the bounds. With *prev* the last
///   point ≤ p* and *next* the first ≥ p*: if the point behind p* in v's
///   direction (prev for v > 0, next for v < 0) is s₀, the target is the
///   one ahead (a flick that projects short of the next point still leaves
///   s₀); else the point nearest p*.
/// A tie between two points goes to the lower one.
public struct SnapPoints: Sendable, Equatable {
    /// Ascending, at least two, each in 0…1.
    public let points: [Double]

    /// iOS's normal deceleration rate (`UIScrollView.DecelerationRate.normal`).
    public static let normalDeceleration = 0.998

    /// Why `points` cannot be snap points, or nil.
    public static func problem(with points: [Double]) -> String? {
        guard points.count >= 2 else { return "needs at least two points (got \(points.count))" }
        for (k, p) in points.enumerated() where !(p.isFinite && p >= 0 && p <= 1) {
            return "item \(k + 1) must be from 0 to 1 (got \(p))"
        }
        for k in 1..<points.count where !(points[k] > points[k - 1]) {
            return "points must ascend (item \(k): \(points[k - 1]), then \(points[k]))"
        }
        return nil
    }

    /// nil unless `points` are snap points (`problem(with:)`).
    public init?(_ points: [Double]) {
        guard Self.problem(with: points) == nil else { return nil }
        self.points = points
    }

    /// `pages = N`: 0, 1/(N−1), …, 1 (nil for N < 2).
    public init?(pages n: Int) {
        guard n >= 2 else { return nil }
        self.init((0..<n).map { Double($0) / Double(n - 1) })
    }

    /// The indices a gesture that began at point `start` may reach.
    public func bounds(from start: Int, longSwipes: Bool) -> ClosedRange<Int> {
        let s = min(max(start, 0), points.count - 1)
        return longSwipes ? 0...(points.count - 1) : max(0, s - 1)...min(points.count - 1, s + 1)
    }

    /// The progress a gesture that began at point `start` is kept within.
    public func progressBounds(from start: Int, longSwipes: Bool) -> ClosedRange<Double> {
        let b = bounds(from: start, longSwipes: longSwipes)
        return points[b.lowerBound]...points[b.upperBound]
    }

    /// Distances that differ by less than this are a tie: the halfway
    /// point between 1/3 and 2/3 is nearer the upper one in floating point.
    static let tie = 1e-9

    /// The index of the point nearest `p` among `within` (a tie: the lower).
    public func nearest(to p: Double, within: ClosedRange<Int>? = nil) -> Int {
        let range = within ?? 0...(points.count - 1)
        var best = range.lowerBound
        for k in range where abs(points[k] - p) < abs(points[best] - p) - Self.tie { best = k }
        return best
    }

    /// The index of the point `p` names as the wire writes it (six decimals), or nil.
    public func index(of p: Double) -> Int? {
        let k = nearest(to: p)
        return abs(points[k] - p) <= 5e-7 + Self.tie ? k : nil
    }

    /// Where a gesture goes at release.
    public struct Target: Sendable, Equatable {
        /// The point's index and value.
        public var index: Int
        public var progress: Double
        /// p*, when the release was a flick (nil: slower than the flick velocity).
        public var projected: Double?
        /// True when a flick's projection fell between s₀ and the next point
        /// and it went on to that point.
        public var leftStart: Bool
    }

    /// The release rule (above) for a gesture that began at point `start`.
    public func target(progress p: Double, velocity v: Double, start: Int, flickVelocity: Double,
                       decelerationRate d: Double = SnapPoints.normalDeceleration,
                       longSwipes: Bool = false) -> Target {
        let s0 = min(max(start, 0), points.count - 1)
        let range = bounds(from: s0, longSwipes: longSwipes)
        let low = points[range.lowerBound], high = points[range.upperBound]
        guard v.isFinite, abs(v) >= flickVelocity, v != 0 else {
            let k = nearest(to: p, within: range)
            return Target(index: k, progress: points[k], projected: nil, leftStart: false)
        }
        let projected = min(max(p + (v / 1000) * d / (1 - d), low), high)
        // prev: the last point ≤ p*; next: the first ≥ p* (both within the bounds, p* being in them).
        var prev = range.lowerBound, next = range.upperBound
        for k in range where points[k] <= projected { prev = k }
        for k in range.reversed() where points[k] >= projected { next = k }
        let (behind, ahead) = v > 0 ? (prev, next) : (next, prev)
        if behind == s0 && ahead != s0 {
            return Target(index: ahead, progress: points[ahead], projected: projected, leftStart: true)
        }
        let k = nearest(to: projected, within: range)
        return Target(index: k, progress: points[k], projected: projected, leftStart: false)
    }
}
