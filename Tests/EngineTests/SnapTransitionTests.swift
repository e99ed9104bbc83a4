import Testing
@testable import Engine

/// Transitions with snap points in the engine: where they rest, both
/// directions, the bounds of one gesture, the release rule's events, and
/// the ends with no rule (a command, shutdown) going back to s₀.
@Suite("Snap points: resting states in the engine")
struct SnapTransitionTests {
    /// A three-page carousel swiped left with one finger (progress grows as
    /// the finger goes left), either way.
    static func carousel(bidirectional: Bool = true, longSwipes: Bool = false, deceleration: Double = 0.998,
                         overshoot: Overshoot = .clamp, flick: Double = 1.0) -> TransitionSpec {
        TransitionSpec(name: "carousel", gesture: .swipe(direction: .left, fingers: 1), flickVelocity: flick,
                       completionCurve: .timing(.linear),
                       snap: SnapSettings(points: SnapPoints(pages: 3)!, bidirectional: bidirectional,
                                          longSwipes: longSwipes, decelerationRate: deceleration, overshoot: overshoot))
    }

    /// A left-edge drawer with a half-open stop.
    static func drawer(bidirectional: Bool = true) -> TransitionSpec {
        TransitionSpec(name: "drawer", gesture: .edgePan(edge: .left, fingers: 1, edgeMargin: 0.05),
                       completionCurve: .timing(.linear),
                       snap: SnapSettings(points: SnapPoints([0, 0.5, 1])!, bidirectional: bidirectional))
    }

    /// A slow drag of one finger from x0 to x1 (0.1 per 0.1 s), held still
    /// long enough that its release velocity is 0, then lifted.
    static func slowDrag(_ h: inout EngineHarness, from x0: Double, to x1: Double, at t0: Double, id: Int = 1) -> Double {
        let duration = abs(x1 - x0) * 2
        h.drag(ramp(from: x0, to: x1, t0: t0, t1: t0 + duration), id: id)
        h.drag([(t0 + duration + 0.1, x1)], id: id)
        h.frame(t0 + duration + 0.11, [])
        return t0 + duration + 0.11
    }

    @Test func aSlowReleaseSnapsToTheNearestPointAndRestsThere() {
        var h = EngineHarness([Self.carousel()])
        let end = Self.slowDrag(&h, from: 0.8, to: 0.5, at: 1)   // 0.3 of the way
        let ended = h.first(.ended)!
        #expect(ended.decision == .snap && ended.target == 0.5 && ended.index == 1 && ended.reason == .released)
        h.settle()
        #expect(h.events.last?.kind == .finished && h.events.last?.progress == 0.5)
        #expect(h.engine.machines[0].rest == 1 && h.engine.rests == [0.5])
        #expect(h.all(.animating).allSatisfy { $0.target == 0.5 })
        // The next gesture continues from 0.5.
        h.events = []
        h.drag(ramp(from: 0.8, to: 0.7, t0: end + 1, t1: end + 1.2), id: 2)
        #expect(h.first(.began)!.progress >= 0.5 && h.first(.began)!.progress < 0.6)
    }

    @Test func oneGestureMovesOnePageWithoutLongSwipes() {
        var h = EngineHarness([Self.carousel()])
        h.drag(ramp(from: 0.95, to: 0.05, t0: 1, t1: 2.8))   // 0.9 of the screen
        #expect(h.all(.changed).map(\.progress).max() == 0.5)
        var long = EngineHarness([Self.carousel(longSwipes: true)])
        long.drag(ramp(from: 0.95, to: 0.05, t0: 1, t1: 2.8))
        #expect(near(long.all(.changed).map(\.progress).max()!, 0.9, 1e-9))
    }

    @Test func bidirectionalGoesBackAndSettlingOnTheStartIsFinished() {
        var h = EngineHarness([Self.carousel()])
        var t = Self.slowDrag(&h, from: 0.8, to: 0.5, at: 1)
        h.settle()
        h.events = []
        // Swiped right from page 1: progress falls below 0.5.
        t = Self.slowDrag(&h, from: 0.3, to: 0.65, at: t + 1, id: 2)
        #expect(h.all(.changed).map(\.progress).min()! < 0.2)
        let ended = h.first(.ended)!
        #expect(ended.decision == .snap && ended.target == 0 && ended.index == 0)
        h.settle()
        #expect(h.events.last?.kind == .finished && h.events.last?.progress == 0)
        #expect(h.engine.machines[0].rest == 0)
        _ = t
    }

    @Test func withoutBidirectionalABackwardSwipeStartsNothing() {
        var h = EngineHarness([Self.carousel(bidirectional: false)])
        _ = Self.slowDrag(&h, from: 0.3, to: 0.6, at: 1)
        #expect(h.first(.began) == nil)
    }

    @Test func aFlickThatProjectsShortOfTheNextPointStillLeavesTheStart() {
        // d = 0.9: p* = p + v · 0.009, far short of 0.5.
        var h = EngineHarness([Self.carousel(deceleration: 0.9)])
        h.drag(ramp(from: 0.8, to: 0.7, t0: 1, t1: 1.05))   // 2/s
        h.frame(1.06, [])
        let ended = h.first(.ended)!
        #expect(ended.decision == .snap && ended.target == 0.5 && ended.index == 1)
        // A flick against the travel goes back to the start.
        var back = EngineHarness([Self.carousel(deceleration: 0.9)])
        back.drag(ramp(from: 0.8, to: 0.5, t0: 1, t1: 1.6))
        back.drag(ramp(from: 0.5, to: 0.7, t0: 1.61, t1: 1.71))
        back.frame(1.72, [])
        #expect(back.first(.ended)!.target == 0 && back.first(.ended)!.velocity < -1)
    }

    @Test func aFastFlickWithLongSwipesPassesTwoPoints() {
        var h = EngineHarness([Self.carousel(longSwipes: true)])
        h.drag(ramp(from: 0.8, to: 0.7, t0: 1, t1: 1.05))   // 2/s: p* ≈ 0.2 + 0.998
        h.frame(1.06, [])
        let ended = h.first(.ended)!
        #expect(ended.target == 1 && ended.index == 2)
    }

    @Test func aCancelCommandGoesBackToTheStartAsAFinish() {
        var h = EngineHarness([Self.carousel()])
        let t = Self.slowDrag(&h, from: 0.8, to: 0.5, at: 1)
        h.settle()
        h.events = []
        h.drag(ramp(from: 0.8, to: 0.6, t0: t + 1, t1: t + 1.4), id: 2)
        #expect(h.engine.perform(.cancel, transition: 0, at: t + 1.5, into: &h.events) == .done)
        let ended = h.first(.ended)!
        #expect(ended.decision == .snap && ended.reason == .command && ended.target == 0.5 && ended.index == 1)
        h.settle()
        #expect(h.events.last?.kind == .finished && h.events.last?.progress == 0.5)
    }

    @Test func runGoesToAPointByIndexOrProgress() {
        var h = EngineHarness([Self.carousel()])
        #expect(h.engine.perform(.run(.point(2)), transition: 0, at: 1, into: &h.events) == .done)
        #expect(h.first(.began)!.progress == 0)
        #expect(h.first(.ended)!.decision == .snap && h.first(.ended)!.target == 1 && h.first(.ended)!.index == 2)
        h.settle()
        #expect(h.engine.machines[0].rest == 2)
        h.events = []
        #expect(h.engine.perform(.run(.progress(0.5)), transition: 0, at: 5, into: &h.events) == .done)
        #expect(h.first(.began)!.progress == 1 && h.first(.ended)!.index == 1)
        h.settle()
        // Not a point: refused, nothing emitted.
        h.events = []
        #expect(h.engine.perform(.run(.progress(0.3)), transition: 0, at: 9, into: &h.events)
                != .done)
        #expect(h.engine.perform(.run(.point(3)), transition: 0, at: 9, into: &h.events) != .done)
        #expect(h.events.isEmpty)
        // To where it rests: it settles at once.
        #expect(h.engine.perform(.run(.point(1)), transition: 0, at: 10, into: &h.events) == .done)
        #expect(h.kinds() == [.began, .ended, .finished])
        // A transition without snap points refuses a point.
        var plain = EngineHarness([backSpec()])
        #expect(plain.engine.perform(.run(.point(1)), transition: 0, at: 1, into: &plain.events) != .done)
    }

    @Test func anEdgePanRestingAwayFromItsFirstPointStartsAnywhere() {
        var h = EngineHarness([Self.drawer()])
        // Mid-screen at rest 0: not the edge.
        var t = Self.slowDrag(&h, from: 0.5, to: 0.7, at: 1)
        #expect(h.first(.began) == nil)
        #expect(!h.engine.mayStartGesture(source: 0, x: 0.5, y: 0.5))
        t = Self.slowDrag(&h, from: 0.01, to: 0.5, at: t + 1, id: 2)
        h.settle()
        #expect(h.engine.machines[0].rest == 1)
        #expect(h.engine.mayStartGesture(source: 0, x: 0.5, y: 0.5))
        h.events = []
        // Closed from the middle of the screen.
        _ = Self.slowDrag(&h, from: 0.6, to: 0.2, at: t + 1, id: 3)
        #expect(h.first(.began) != nil)
        #expect(h.first(.ended)!.target == 0)
        h.settle()
        #expect(!h.engine.mayStartGesture(source: 0, x: 0.5, y: 0.5))
    }

    @Test func rubberBandDampsTravelPastTheEndsAndSnapsBackInside() {
        var h = EngineHarness([Self.carousel(overshoot: .rubberBand)])
        _ = Self.slowDrag(&h, from: 0.4, to: 0.8, at: 1)   // 0.4 the wrong way, at rest 0
        let lowest = h.all(.changed).map(\.progress).min()!
        #expect(near(lowest, -Overshoot.rubberBand(0.4), 1e-9))
        #expect(lowest > -0.2 && lowest < 0)
        h.settle()
        #expect(h.events.last?.kind == .finished && h.events.last?.progress == 0)
        // f(x) = 1 − 1/(0.55x + 1): slope 0.55 at 0, below 1 always.
        #expect(near(Overshoot.rubberBand(0.001), 0.00055, 1e-6) && Overshoot.rubberBand(100) < 1)
    }

    @Test func catchingAnAnimationStartsFromTheNearestPoint() {
        var h = EngineHarness([TransitionSpec(name: "carousel", gesture: .swipe(direction: .left, fingers: 1),
                                              duration: 2, completionCurve: .timing(.linear),
                                              snap: SnapSettings(points: SnapPoints(pages: 3)!, bidirectional: true))])
        #expect(h.engine.perform(.run(.point(2)), transition: 0, at: 1, into: &h.events) == .done)
        // Caught at 0.8 of the way (1.6 s of 2 s): s₀ is 1, its bounds 0.5…1.
        h.events = []
        h.drag(ramp(from: 0.5, to: 0.2, t0: 2.6, t1: 3.2))
        #expect(h.all(.changed).map(\.progress).max() == 1)
        h.drag([(3.4, 0.2)])
        h.frame(3.41, [])
        #expect(h.first(.ended)!.target == 1)
    }

    @Test func shutdownSettlesWhereItRests() {
        var h = EngineHarness([Self.carousel()])
        let t = Self.slowDrag(&h, from: 0.8, to: 0.5, at: 1)
        h.settle()
        h.events = []
        h.drag(ramp(from: 0.8, to: 0.6, t0: t + 1, t1: t + 1.4), id: 2)
        h.engine.shutdown(at: t + 1.5, into: &h.events)
        #expect(h.kinds().suffix(2) == [.ended, .finished])
        let ended = h.all(.ended).last!
        #expect(ended.decision == .snap && ended.reason == .shutdown && ended.target == 0.5)
        #expect(h.events.last!.progress == 0.5)
    }

    @Test func aReloadKeepsTheRestOnlyWhenThePointsStay() {
        var h = EngineHarness([Self.carousel()])
        _ = Self.slowDrag(&h, from: 0.8, to: 0.5, at: 1)
        h.settle()
        h.engine.reload(EngineConfiguration(transitions: [Self.carousel(longSwipes: true)]))
        #expect(h.engine.rests == [0.5])
        var four = Self.carousel()
        four.snap = SnapSettings(points: SnapPoints(pages: 4)!)
        h.engine.reload(EngineConfiguration(transitions: [four]))
        #expect(h.engine.rests == [0])
    }

    /// In flight at a reload that keeps its points: it finishes under the
    /// earlier config, and the config in use rests where it settled.
    @Test func aReloadInFlightCarriesWhereItSettles() {
        var h = EngineHarness([Self.carousel()])
        #expect(h.engine.perform(.run(.point(2)), transition: 0, at: 1, into: &h.events) == .done)
        h.engine.reload(EngineConfiguration(transitions: [Self.carousel()]))
        h.settle()
        #expect(h.events.last?.kind == .finished && h.engine.rests == [1])
        // Its next drive starts from 1: held within 0.5…1.
        h.events = []
        #expect(h.engine.perform(.drive(progress: 0.2), transition: 0, at: 5, into: &h.events) == .done)
        #expect(h.first(.began)?.progress == 0.5)
        // Other points: it stays where the reload put it.
        var other = EngineHarness([Self.carousel()])
        _ = other.engine.perform(.run(.point(2)), transition: 0, at: 1, into: &other.events)
        var four = Self.carousel()
        four.snap = SnapSettings(points: SnapPoints(pages: 4)!)
        other.engine.reload(EngineConfiguration(transitions: [four]))
        other.settle()
        #expect(other.engine.rests == [0])
    }

    @Test func runToAPointAsTheWireWritesIt() {
        var third = Self.carousel()
        third.snap = SnapSettings(points: SnapPoints(pages: 4)!)
        var h = EngineHarness([third])
        #expect(h.engine.perform(.run(.progress(0.333333)), transition: 0, at: 1, into: &h.events) == .done)
        #expect(h.first(.ended)?.index == 1)
        h.events = []
        guard case .refused(_, let message) = h.engine.perform(.run(.progress(0.4)), transition: 0, at: 9, into: &h.events) else {
            Issue.record("0.4 accepted")
            return
        }
        #expect(message.contains("0, 0.333333, 0.666667, 1"), "\(message)")
    }

    @Test func aTransitionWithoutSnapPointsHasNoRestAndEndsAsBefore() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.8, t0: 1, t1: 2))
        h.frame(2.01, [])
        let ended = h.first(.ended)!
        #expect(ended.decision == .finish && ended.target == nil && ended.index == nil)
        #expect(h.engine.rests == [nil])
    }
}
