import Testing
@testable import Engine

/// The snap points' release rule as a table: where a gesture released at
/// progress p with velocity v goes, from the point s₀ it began at.
@Suite("Snap points: the release rule")
struct SnapPointsTests {
    static let three = SnapPoints([0, 0.5, 1])!
    static let five = SnapPoints(pages: 5)!

    struct Case: CustomTestStringConvertible, Sendable {
        var why: String
        var points: SnapPoints
        var p: Double
        var v: Double
        var start: Int
        var flick = 1.0
        var rate = SnapPoints.normalDeceleration
        var longSwipes = false
        var index: Int
        var projected: Double? = nil
        var testDescription: String { why }
    }

    static let cases: [Case] = [
        Case(why: "a slow release goes to the point nearest p: the middle one",
             points: three, p: 0.4, v: 0.2, start: 0, index: 1),
        Case(why: "a slow release short of halfway comes back",
             points: three, p: 0.2, v: 0.9, start: 0, index: 0),
        Case(why: "a tie between two points goes to the lower",
             points: three, p: 0.25, v: 0, start: 0, index: 0),
        // 0.05 + 1.2/1000 · 0.99/0.01 = 0.1688: nearer 0, yet between s₀ and the next point.
        Case(why: "a flick projecting short of the next point still leaves s₀",
             points: three, p: 0.05, v: 1.2, start: 0, rate: 0.99, index: 1, projected: 0.1688),
        // 0.1 + 0.9/1000 · 0.998/0.002 = 0.5491: between 0.5 and 0.75, nearer 0.5.
        Case(why: "a fast flick with long_swipes jumps two points",
             points: five, p: 0.1, v: 0.9, start: 0, flick: 0.5, longSwipes: true, index: 2, projected: 0.5491),
        Case(why: "the same flick without long_swipes goes one page",
             points: five, p: 0.1, v: 0.9, start: 0, flick: 0.5, index: 1, projected: 0.25),
        // 0.6 − 1.5 · 0.499 = −0.1485, clamped to 0.
        Case(why: "a flick against the travel goes back past s₀ to the point before",
             points: three, p: 0.6, v: -1.5, start: 1, index: 0, projected: 0),
        // 0.6 − 1.0 · 0.099 = 0.501: behind it (0.5 ahead, 1 behind) is not s₀: nearest, s₀.
        Case(why: "a flick back that projects just past s₀ settles on s₀",
             points: three, p: 0.6, v: -1.0, start: 1, rate: 0.99, index: 1, projected: 0.501),
        Case(why: "at the first point a flick past it stays there",
             points: three, p: 0.02, v: -3, start: 0, index: 0, projected: 0),
        Case(why: "at the last point a flick past it stays there",
             points: three, p: 0.98, v: 3, start: 2, index: 2, projected: 1),
        Case(why: "one page a gesture: a slow release past the next point stops at it",
             points: five, p: 0.6, v: 0, start: 0, index: 1),
        Case(why: "with long_swipes a slow release anywhere: the nearest of all",
             points: five, p: 0.6, v: 0, start: 0, longSwipes: true, index: 2),
        Case(why: "a velocity exactly at the flick velocity is a flick",
             points: three, p: 0.1, v: 1.0, start: 0, index: 1, projected: 0.5),
    ]

    @Test(arguments: cases)
    func releaseRule(_ c: Case) {
        let target = c.points.target(progress: c.p, velocity: c.v, start: c.start, flickVelocity: c.flick,
                                     decelerationRate: c.rate, longSwipes: c.longSwipes)
        #expect(target.index == c.index)
        #expect(target.progress == c.points.points[c.index])
        if let projected = c.projected {
            #expect(abs((target.projected ?? .nan) - projected) < 1e-4, "p* \(String(describing: target.projected))")
        } else {
            #expect(target.projected == nil)
        }
    }

    @Test func pagesAreEvenlySpacedFromZeroToOne() {
        #expect(SnapPoints(pages: 3)?.points == [0, 0.5, 1])
        #expect(SnapPoints(pages: 5)?.points == [0, 0.25, 0.5, 0.75, 1])
        #expect(SnapPoints(pages: 2)?.points == [0, 1])
        #expect(SnapPoints(pages: 1) == nil)
    }

    @Test func badPointsAreNamed() {
        #expect(SnapPoints.problem(with: [0.5]) == "needs at least two points (got 1)")
        #expect(SnapPoints.problem(with: [0, 1.5]) == "item 2 must be from 0 to 1 (got 1.5)")
        #expect(SnapPoints.problem(with: [0, .nan]) == "item 2 must be from 0 to 1 (got nan)")
        #expect(SnapPoints.problem(with: [0, 0.5, 0.5]) == "points must ascend (item 2: 0.5, then 0.5)")
    }

    /// Halfway between two points is a tie, also where floating point puts
    /// it a hair nearer the upper one; a point given as the wire writes it
    /// (six decimals) names it.
    @Test func tiesAndPointsAsTheWireWritesThem() {
        let quarters = SnapPoints(pages: 4)!
        #expect(quarters.nearest(to: 0.5) == 1)
        #expect(SnapPoints([0, 0.1, 0.2])!.nearest(to: 0.15) == 1)
        #expect(quarters.target(progress: 0.5, velocity: 0, start: 1, flickVelocity: 1, longSwipes: true).index == 1)
        #expect(quarters.index(of: 0.333333) == 1 && quarters.index(of: 0.666667) == 2 && quarters.index(of: 1) == 3)
        #expect(quarters.index(of: 0.333) == nil && quarters.index(of: 0.5) == nil)
        #expect(SnapPoints.problem(with: [0.2, 0.7]) == nil, "a list need not start at 0 or end at 1")
        #expect(SnapPoints([1, 0]) == nil)
    }

    @Test func boundsAreTheNeighboursOrEverythingWithLongSwipes() {
        #expect(Self.five.bounds(from: 0, longSwipes: false) == 0...1)
        #expect(Self.five.bounds(from: 2, longSwipes: false) == 1...3)
        #expect(Self.five.bounds(from: 4, longSwipes: false) == 3...4)
        #expect(Self.five.bounds(from: 2, longSwipes: true) == 0...4)
        #expect(Self.five.progressBounds(from: 2, longSwipes: false) == 0.25...0.75)
        // s₀ of a gesture that catches an animation: the point nearest where it caught it.
        #expect(Self.five.nearest(to: 0.62) == 2)
        #expect(Self.five.nearest(to: 0.625) == 2, "a tie: the lower")
    }

    @Test func aNonFiniteVelocityCountsAsSlow() {
        let target = Self.three.target(progress: 0.4, velocity: .nan, start: 0, flickVelocity: 1)
        #expect(target.index == 1 && target.projected == nil)
    }

    /// The rule again, written from gnome-shell's swipe tracker
    /// (`swipeTracker.js`: the closest point below its velocity threshold;
    /// else the projection clamped to the bounds, and "if the point behind
    /// the projection is where the gesture began, the one ahead, else the
    /// closest"), with its linear projection (below its curve threshold),
    /// which is iOS's, and the bounds around a start at a point. Compared
    /// on 20,000 seeded releases.
    @Test func itAgreesWithTheSwipeTrackersRuleOnSeededReleases() {
        var seed: UInt64 = 0x5A4B_0001
        func unit() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 11) * 0x1p-53
        }
        func reference(_ points: [Double], start: Int, p: Double, v: Double, threshold: Double, decel: Double,
                       longSwipes: Bool) -> Int {
            func closest(_ x: Double) -> Int {
                var best = 0
                for k in points.indices where abs(points[k] - x) < abs(points[best] - x) { best = k }
                return best
            }
            if abs(v) < threshold { return closest(p) }
            let lower = longSwipes ? points[0] : points[max(start - 1, 0)]
            let upper = longSwipes ? points[points.count - 1] : points[min(start + 1, points.count - 1)]
            let pos = min(max(p + (v > 0 ? 1 : -1) * abs(v) * decel / (1 - decel) / 1000, lower), upper)
            let next = points.firstIndex { $0 >= pos }!
            let prev = points.lastIndex { $0 <= pos }!
            if (v > 0 ? prev : next) == start { return v > 0 ? next : prev }
            return closest(pos)
        }
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            let n = 2 + Int(unit() * 5)
            var raw = (0..<n).map { _ in unit() }.sorted()
            for k in 1..<n where raw[k] <= raw[k - 1] { raw[k] = min(1, raw[k - 1] + 0.01) }
            guard let snap = SnapPoints(raw) else { continue }
            let start = Int(unit() * Double(n))
            let longSwipes = unit() < 0.3
            let range = snap.progressBounds(from: start, longSwipes: longSwipes)
            let p = range.lowerBound + unit() * (range.upperBound - range.lowerBound)
            let v = (unit() * 2 - 1) * 3
            let flick = 0.2 + unit()
            let decel = unit() < 0.5 ? 0.99 : 0.998
            let ours = snap.target(progress: p, velocity: v, start: start, flickVelocity: flick, decelerationRate: decel,
                                   longSwipes: longSwipes).index
            let theirs = reference(snap.points, start: start, p: p, v: v, threshold: flick, decel: decel, longSwipes: longSwipes)
            if ours != theirs && disagreements.count < 5 {
                disagreements.append("\(snap.points) s0 \(start) p \(p) v \(v): \(ours) against \(theirs)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements)")
    }
}
