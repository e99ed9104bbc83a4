import Testing
@testable import Engine

/// Exclusion regions the UI declares (`TransitionEngine.setExclusions`): no
/// gesture starts from a touch that begins inside one; what is under way
/// goes on; the filter is told not to hold such a touch.
@Suite("Exclusion regions")
struct ExclusionTests {
    /// The bottom-left corner of the left edge.
    let corner = ScreenRect(x0: 0, y0: 0.6, x1: 0.3, y1: 1)

    @Test func aTouchBeginningInsideARegionStartsNothingAndIsExplained() {
        var h = EngineHarness([backSpec()])
        h.engine.explanations = []
        h.engine.setExclusions([corner])
        h.drag(ramp(from: 0.01, to: 0.6, t0: 0, t1: 0.5), y: 0.8)
        h.frame(0.6, [])
        h.settle()
        #expect(h.events.isEmpty, "no transition began: \(h.kinds())")
        #expect(h.engine.explanations?.contains(.rejected(transition: 0, time: 0, why: .excluded(x: 0.01, y: 0.8))) == true)
        #expect(Rejection.excluded(x: 0.01, y: 0.8).text
                == "touch-down at (0.01, 0.8), inside an exclusion region the UI declared")
        #expect(Rejection.excluded(x: 0.01, y: 0.8).kind == "excluded")
        #expect(h.engine.tally.rejected[EngineTally.Rejected(transition: "back", reason: "excluded")] == 1)
    }

    @Test func aTouchBeginningOutsideEveryRegionStarts() {
        var h = EngineHarness([backSpec()])
        h.engine.setExclusions([corner])
        h.drag(ramp(from: 0.01, to: 0.6, t0: 0, t1: 0.5), y: 0.3)
        #expect(h.first(.began) != nil, "the edge above the region still works: \(h.kinds())")
    }

    @Test func aSwipeWithOneFingerInsideARegionIsRefused() {
        let swipe = TransitionSpec(name: "up", gesture: .swipe(direction: .up, fingers: 2))
        func play(_ h: inout EngineHarness) {
            for k in 0...30 {
                let dy = Double(k) * 0.01
                h.frame(Double(k) * 0.01, [(1, 0.5, 0.5 - dy), (2, 0.7, 0.8 - dy)])
            }
        }
        var free = EngineHarness([swipe])
        play(&free)
        #expect(free.first(.began) != nil, "without the region it is a swipe")
        var h = EngineHarness([swipe])
        h.engine.setExclusions([ScreenRect(x0: 0.4, y0: 0.4, x1: 0.6, y1: 0.6)])
        play(&h)
        #expect(h.events.isEmpty, "the first finger began inside: \(h.kinds())")
    }

    @Test func aGestureUnderWayIsNotAffected() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.3, t0: 0, t1: 0.3), y: 0.8)
        #expect(h.first(.began) != nil)
        h.engine.setExclusions([corner, ScreenRect(x0: 0, y0: 0, x1: 1, y1: 1)])
        h.drag(ramp(from: 0.31, to: 0.8, t0: 0.31, t1: 0.8), y: 0.8)
        h.frame(0.9, [])
        #expect(h.all(.changed).count > 40, "it went on changing")
        #expect(h.first(.ended)?.decision == .finish)
        #expect(h.first(.ended)?.reason == .released)
    }

    @Test func clearingTheRegionsLetsTheEdgeWorkAgain() {
        var h = EngineHarness([backSpec()])
        h.engine.setExclusions([corner])
        h.drag(ramp(from: 0.01, to: 0.3, t0: 0, t1: 0.3), y: 0.8)
        h.frame(0.35, [])
        #expect(h.first(.began) == nil)
        h.engine.setExclusions([])
        #expect(h.engine.exclusions.isEmpty)
        h.drag(ramp(from: 0.01, to: 0.3, t0: 0.4, t1: 0.7), y: 0.8, id: 2)
        #expect(h.first(.began) != nil)
    }

    @Test func mayStartGestureIsFalseInsideARegion() {
        var h = EngineHarness([backSpec()])
        #expect(h.engine.mayStartGesture(source: 0, x: 0.01, y: 0.8))
        h.engine.setExclusions([corner])
        #expect(!h.engine.mayStartGesture(source: 0, x: 0.01, y: 0.8))
        #expect(!h.engine.mayStartGesture(source: 0, x: 0, y: 0.6), "its border is inside")
        #expect(h.engine.mayStartGesture(source: 0, x: 0.01, y: 0.5))
    }

    @Test func theEdgeCapMeasuresTheUnionAlongEachEdgeWithinItsMargin() {
        let config = EngineConfiguration(transitions: [
            TransitionSpec(name: "back", gesture: .edgePan(edge: .left, fingers: 1, edgeMargin: 0.1)),
        ])
        let cap = EdgeExclusionCap(fraction: 0.5, configuration: config)
        #expect(cap.margin(of: .left) == 0.1)
        #expect(cap.margin(of: .right) == EdgeExclusionCap.defaultMargin)
        // Two overlapping spans on the left edge: 0.2…0.5 ∪ 0.4…0.6 = 0.4.
        let rects = [ScreenRect(x0: 0.08, y0: 0.2, x1: 0.5, y1: 0.5), ScreenRect(x0: 0, y0: 0.4, x1: 0.2, y1: 0.6),
                     // Beyond the left margin: not counted for the left edge.
                     ScreenRect(x0: 0.11, y0: 0, x1: 0.3, y1: 1)]
        #expect(abs(cap.coverage(of: rects, on: .left) - 0.4) < 1e-12)
        #expect(cap.coverage(of: rects, on: .right) == 0)
        #expect(cap.violation(by: rects) == nil)
        let over = rects + [ScreenRect(x0: 0.05, y0: 0.7, x1: 0.2, y1: 0.85)]
        #expect(cap.violation(by: over)?.edge == .left)
        #expect(abs((cap.violation(by: over)?.covered ?? 0) - 0.55) < 1e-12)
        // The whole bottom edge.
        #expect(cap.violation(by: [ScreenRect(x0: 0, y0: 0.97, x1: 1, y1: 1)])?.edge == .bottom)
    }
}
