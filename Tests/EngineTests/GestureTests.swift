import Testing
@testable import Engine

@Suite("Gestures: candidate, begin, reject, release")
struct EdgePanTests {
    @Test func beginsAtFirstFrameWithActivationTravel() {
        var h = EngineHarness([backSpec()])
        h.drag([(0.00, 0.03), (0.01, 0.04), (0.02, 0.049), (0.03, 0.05), (0.04, 0.06)])
        let began = h.all(.began)
        #expect(began.count == 1)
        #expect(began.first?.time == 0.03)               // d = 0.02 reached at 0.03
        #expect(near(began.first!.progress, 0.02, 1e-12))  // p = d / distance
        #expect(began.first?.velocity == 0)
        #expect(h.all(.changed).count == 1)
        #expect(near(h.all(.changed)[0].progress, 0.03, 1e-12))
    }

    @Test func touchDownOutsideTheMarginIsNotACandidate() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.051, to: 0.6, t0: 0, t1: 0.5))
        #expect(h.events.isEmpty)
    }

    @Test func touchDownOnTheMarginIsACandidate() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.05, to: 0.6, t0: 0, t1: 0.5))
        #expect(h.all(.began).count == 1)
    }

    @Test func moreSidewaysThanInwardIsRejected() {
        var h = EngineHarness([backSpec()])
        // At the activation frame d = 0.025, q = 0.03.
        h.frame(0.00, [(1, 0.01, 0.50)])
        h.frame(0.01, [(1, 0.035, 0.53)])
        h.frame(0.02, [(1, 0.30, 0.53)])
        #expect(h.events.isEmpty)
        // Rejected stays rejected until the finger lifts.
        h.frame(0.03, [(1, 0.40, 0.53)])
        #expect(h.events.isEmpty)
    }

    @Test func sidewaysEqualToInwardBegins() {
        var h = EngineHarness([backSpec()])
        h.frame(0.00, [(1, 0.0, 0.50)])
        h.frame(0.01, [(1, 0.0625, 0.5625)])   // q == d (exact binary fractions): not more, so it begins
        #expect(h.all(.began).count == 1)
    }

    @Test func aSecondFingerBeforeActivationRejects() {
        var h = EngineHarness([backSpec()])
        h.frame(0.00, [(1, 0.01, 0.5)])
        h.frame(0.01, [(1, 0.015, 0.5), (2, 0.5, 0.5)])
        h.frame(0.02, [(1, 0.2, 0.5)])
        h.frame(0.03, [(1, 0.3, 0.5)])
        #expect(h.events.isEmpty)
    }

    @Test func extraFingersAfterBeginAreIgnored() {
        var h = EngineHarness([backSpec()])
        h.frame(0.00, [(1, 0.01, 0.5)])
        h.frame(0.01, [(1, 0.1, 0.5)])
        h.frame(0.02, [(1, 0.2, 0.5), (2, 0.9, 0.1)])
        h.frame(0.03, [(1, 0.3, 0.5), (2, 0.1, 0.9)])
        #expect(h.kinds() == [.began, .changed, .changed])
        #expect(near(h.events.last!.progress, 0.29, 1e-12))
    }

    @Test func releasedWhenTheContactLifts() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.7, t0: 0, t1: 0.69))
        h.frame(0.70, [])
        let ended = h.first(.ended)!
        #expect(ended.time == 0.70)
        #expect(ended.reason == .released)
        // The release frame has no position: ended carries the last sample's p.
        #expect(near(ended.progress, 0.69, 1e-9))
        #expect(near(ended.velocity, 1.0, 1e-6))
        #expect(ended.decision == .finish)
    }

    @Test(arguments: Edge.allCases)
    func everyEdge(_ edge: Edge) {
        var h = EngineHarness([backSpec(edge)])
        // Start 0.01 from the edge, travel 0.3 inward.
        func point(_ inward: Double) -> (Double, Double) {
            switch edge {
            case .left: return (inward, 0.5)
            case .right: return (1 - inward, 0.5)
            case .top: return (0.5, inward)
            case .bottom: return (0.5, 1 - inward)
            }
        }
        for k in 0...30 {
            let (x, y) = point(0.01 + Double(k) * 0.01)
            h.frame(Double(k) * 0.01, [(1, x, y)])
        }
        #expect(h.all(.began).count == 1)
        #expect(near(h.events.last!.progress, 0.30, 1e-9))
        // The same drag starting from the middle does nothing.
        var away = EngineHarness([backSpec(edge)])
        for k in 0...30 {
            let (x, y) = point(0.3 + Double(k) * 0.01)
            away.frame(Double(k) * 0.01, [(1, x, y)])
        }
        #expect(away.events.isEmpty)
    }

    @Test func twoFingerEdgePanUsesTheCentroid() {
        var h = EngineHarness([backSpec(fingers: 2)])
        h.frame(0.00, [(1, 0.01, 0.3)])
        h.frame(0.01, [(1, 0.01, 0.3), (2, 0.02, 0.6)])   // count reaches 2: candidate
        h.frame(0.02, [(1, 0.05, 0.3), (2, 0.04, 0.6)])   // centroid moved 0.03
        #expect(h.all(.began).count == 1)
        #expect(near(h.first(.began)!.progress, 0.03, 1e-12))
        // Lifting one of two releases.
        h.frame(0.03, [(1, 0.06, 0.3)])
        #expect(h.first(.ended) != nil)
    }

    @Test func twoFingerEdgePanNeedsBothAtTheEdge() {
        var h = EngineHarness([backSpec(fingers: 2)])
        h.frame(0.00, [(1, 0.01, 0.3)])
        h.frame(0.01, [(1, 0.01, 0.3), (2, 0.3, 0.6)])
        h.frame(0.02, [(1, 0.2, 0.3), (2, 0.5, 0.6)])
        #expect(h.events.isEmpty)
    }

    @Test func aTapProducesNothing() {
        var h = EngineHarness([backSpec()])
        h.frame(0, [(1, 0.02, 0.5)])
        h.frame(0.05, [])
        #expect(h.events.isEmpty)
        #expect(h.engine.isIdle)
    }
}

@Suite("Swipe and pinch")
struct SwipeAndPinchTests {
    @Test(arguments: SwipeDirection.allCases)
    func threeFingerSwipe(_ direction: SwipeDirection) {
        let spec = TransitionSpec(name: "s", gesture: .swipe(direction: direction, fingers: 3))
        var h = EngineHarness([spec])
        let (dx, dy): (Double, Double) = switch direction {
        case .left: (-1, 0)
        case .right: (1, 0)
        case .up: (0, -1)
        case .down: (0, 1)
        }
        let starts = [(0.4, 0.5), (0.5, 0.45), (0.6, 0.5)]
        for k in 0...16 {
            let s = Double(k) * 0.025
            h.frame(Double(k) * 0.01, starts.enumerated().map { ($0 + 1, $1.0 + dx * s, $1.1 + dy * s) })
        }
        #expect(h.all(.began).count == 1)
        #expect(h.first(.began)!.time == 0.01)
        #expect(near(h.first(.began)!.progress, 0.025, 1e-9))
        #expect(near(h.events.last!.progress, 0.4, 1e-9))
    }

    @Test func swipeNeedsAllThreeFingers() {
        let spec = TransitionSpec(name: "s", gesture: .swipe(direction: .up, fingers: 3))
        var h = EngineHarness([spec])
        for k in 0...20 {
            let s = Double(k) * 0.02
            h.frame(Double(k) * 0.01, [(1, 0.4, 0.8 - s), (2, 0.5, 0.8 - s)])
        }
        #expect(h.events.isEmpty)
    }

    @Test func pinchInProgressIsOneMinusScaleOverDistance() {
        let spec = TransitionSpec(name: "close", gesture: .pinch(direction: .in))
        #expect(spec.distance == 0.5)
        var h = EngineHarness([spec])
        // Fingers at ±r around (0.5, 0.5): spread = r.
        for (k, r) in [0.2, 0.195, 0.19, 0.18, 0.15].enumerated() {
            h.frame(Double(k) * 0.01, [(1, 0.5 - r, 0.5), (2, 0.5 + r, 0.5)])
        }
        // Activation 0.02 of spread change is reached at r = 0.18: s = 0.9 → p = 0.2.
        #expect(near(h.first(.began)!.progress, 0.2, 1e-9))
        #expect(h.first(.began)!.time == 0.03)
        // r = 0.15: s = 0.75 → p = 0.5.
        #expect(near(h.events.last!.progress, 0.5, 1e-9))
    }

    @Test func pinchOutProgress() {
        let spec = TransitionSpec(name: "open", gesture: .pinch(direction: .out))
        #expect(spec.distance == 1.0)
        var h = EngineHarness([spec])
        for (k, r) in [0.1, 0.11, 0.12, 0.15].enumerated() {
            h.frame(Double(k) * 0.01, [(1, 0.5, 0.5 - r), (2, 0.5, 0.5 + r)])
        }
        #expect(near(h.first(.began)!.progress, 0.2, 1e-9))   // s = 1.2
        #expect(near(h.events.last!.progress, 0.5, 1e-9))     // s = 1.5
    }

    @Test func twoFingerPanIsNotAPinch() {
        let spec = TransitionSpec(name: "close", gesture: .pinch(direction: .in))
        var h = EngineHarness([spec])
        for k in 0...10 {
            let s = Double(k) * 0.03
            // Spread shrinks a little while the pair moves a lot.
            let r = 0.2 - Double(k) * 0.003
            h.frame(Double(k) * 0.01, [(1, 0.3 - r + s, 0.5), (2, 0.3 + r + s, 0.5)])
        }
        #expect(h.events.isEmpty)
    }
}

@Suite("Several transitions")
struct ClaimTests {
    @Test func aClaimedTouchIsNotGivenToAnother() {
        let back = backSpec()
        // A right swipe with one finger would also match a left-edge drag.
        let swipe = TransitionSpec(name: "swipe", gesture: .swipe(direction: .right, fingers: 1))
        var h = EngineHarness([back, swipe])
        h.drag(ramp(from: 0.01, to: 0.4, t0: 0, t1: 0.3))
        h.frame(0.31, [])
        h.settle()
        #expect(h.events.allSatisfy { $0.transition == 0 })
        #expect(h.all(.began).count == 1)
    }

    @Test func theOtherTransitionGetsItsOwnTouch() {
        let back = backSpec()
        let forward = TransitionSpec(name: "forward", gesture: .edgePan(edge: .right, fingers: 1, edgeMargin: 0.05))
        var h = EngineHarness([back, forward])
        h.frame(0.00, [(1, 0.01, 0.5)])
        h.frame(0.01, [(1, 0.10, 0.5)])
        h.frame(0.02, [(1, 0.11, 0.5), (2, 0.99, 0.5)])
        h.frame(0.03, [(1, 0.12, 0.5), (2, 0.90, 0.5)])
        #expect(h.all(.began).map(\.transition) == [0, 1])
    }

    @Test func seqRisesByOne() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.7, t0: 0, t1: 0.5))
        h.frame(0.51, [])
        h.settle()
        #expect(h.events.map(\.seq) == Array(1...UInt64(h.events.count)))
    }
}

@Suite("Progress clamping and distance")
struct ProgressClampTests {
    @Test func progressClampsAtZeroAndOne() {
        var spec = backSpec()
        spec.distance = 0.5
        var h = EngineHarness([spec])
        h.frame(0.00, [(1, 0.02, 0.5)])
        h.frame(0.01, [(1, 0.12, 0.5)])     // d 0.1 → p 0.2 (distance 0.5)
        #expect(near(h.events.last!.progress, 0.2, 1e-12))
        h.frame(0.02, [(1, 0.90, 0.5)])     // d 0.88 → 1.76 → clamped
        #expect(h.events.last!.progress == 1)
        h.frame(0.03, [(1, 0.01, 0.5)])     // back past the start → clamped at 0
        #expect(h.events.last!.progress == 0)
        #expect(h.events.allSatisfy { (0...1).contains($0.progress) })
    }

    @Test func theReleaseFrameIsNotASample() {
        // The finger moves fast, then one last frame far later lifts it: the
        // rest rule sees 60 ms since the last change → v = 0, p from the last sample.
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.41, t0: 0, t1: 0.2))
        h.frame(0.26, [])
        let ended = h.first(.ended)!
        #expect(ended.velocity == 0)
        #expect(near(ended.progress, 0.4, 1e-9))
        #expect(ended.decision == .cancel)
    }
}
