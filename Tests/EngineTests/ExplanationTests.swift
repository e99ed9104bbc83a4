import Testing
@testable import Engine

/// The engine's explanations: each touch-down, which transitions took it as
/// a candidate or passed over it and why, and what decided each end.
@Suite("Explanations")
struct ExplanationTests {
    func explaining(_ specs: [TransitionSpec]) -> EngineHarness {
        var h = EngineHarness(specs)
        h.engine.explanations = []
        return h
    }

    @Test func aTouchDownOutsideTheMarginIsPassedOverWithItsPlace() {
        var h = explaining([backSpec()])
        h.frame(0, [(1, 0.31, 0.5)])
        let notes = h.engine.explanations ?? []
        #expect(notes == [.touchDown(time: 0, source: 0, x: 0.31, y: 0.5),
                          .rejected(transition: 0, time: 0, why: .outsideEdge(edge: .left, at: 0.31, margin: 0.05))])
        #expect(Rejection.outsideEdge(edge: .left, at: 0.31, margin: 0.05).text
                == "touch-down at x = 0.31, outside the left edge margin 0.05")
    }

    @Test func aSidewaysCandidateIsDroppedWithItsTravel() {
        var h = explaining([backSpec()])
        h.frame(0, [(1, 0.01, 0.5)])
        h.frame(0.01, [(1, 0.04, 0.57)])
        let notes = h.engine.explanations ?? []
        #expect(notes.contains(.candidate(transition: 0, time: 0)))
        guard case .rejected(0, 0.01, .sideways(let sideways, let along))? = notes.last else {
            Issue.record("no sideways rejection: \(notes)")
            return
        }
        #expect(abs(sideways - 0.07) < 1e-9 && abs(along - 0.03) < 1e-9)
        #expect(Rejection.sideways(sideways: 0.04, along: 0.02).text == "moved 0.04 sideways before 0.02 along")
    }

    @Test func tooManyFingersAndOutsideTheRangeAreSaid() {
        var spec = backSpec()
        spec.gesture = .edgePan(edge: .left, fingers: 1, edgeMargin: 0.05, range: EdgeRange(start: 0.5, end: 1))
        var h = explaining([spec])
        h.frame(0, [(1, 0.01, 0.2)])
        #expect(h.engine.explanations?.last == .rejected(transition: 0, time: 0,
                                                          why: .outsideRange(edge: .left, at: 0.2, range: EdgeRange(start: 0.5, end: 1))))
        h.frame(0.1, [])
        h.frame(0.2, [(2, 0.01, 0.7), (3, 0.01, 0.8)])
        #expect(h.engine.explanations?.last == .rejected(transition: 0, time: 0.2, why: .tooManyContacts(count: 2, fingers: 1)))
    }

    @Test func aDecisionSaysWhatMadeItAndThePeak() {
        var h = explaining([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.7, t0: 0, t1: 0.7) + ramp(from: 0.7, to: 0.6, t0: 0.71, t1: 1.5))
        h.frame(1.6, [])
        guard case .decided(0, _, .finish, .threshold(let p, 0.5), _, let v, let peak)? = h.engine.explanations?.last else {
            Issue.record("no threshold decision: \(String(describing: h.engine.explanations?.last))")
            return
        }
        #expect(abs(p - 0.59) < 0.02 && abs(peak - 0.69) < 0.02 && abs(v) < 1)
        // A flick decides by its direction.
        var f = explaining([backSpec()])
        f.drag(ramp(from: 0.01, to: 0.3, t0: 0, t1: 0.1))
        f.frame(0.11, [])
        guard case .decided(0, _, .finish, .flick(let velocity, 1.0), _, _, _)? = f.engine.explanations?.last else {
            Issue.record("no flick decision: \(String(describing: f.engine.explanations?.last))")
            return
        }
        #expect(velocity >= 1)
    }

    @Test func aDisabledTransitionSaysSoAtATouchDown() {
        var h = explaining([backSpec()])
        _ = h.engine.perform(.setEnabled(false), transition: 0, at: 0, into: &h.events)
        h.frame(0, [(1, 0.01, 0.5)])
        #expect(h.engine.explanations?.last == .rejected(transition: 0, time: 0, why: .disabled))
    }

    @Test func nothingIsCollectedUnlessAsked() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.6, t0: 0, t1: 0.5))
        #expect(h.engine.explanations == nil)
    }
}
