import Testing
@testable import Engine

/// A transition that does not even look at a touch-down says why (issue 25):
/// too few contacts free for its fingers, waiting for a lift, bound elsewhere.
@Suite("Explanations: not considered")
struct IgnoredExplanationTests {
    let pinch = TransitionSpec(name: "zoom", gesture: .pinch(direction: .in))

    func explaining(_ specs: [TransitionSpec]) -> EngineHarness {
        var h = EngineHarness(specs)
        h.engine.explanations = []
        return h
    }

    @Test func aPinchOnOneFingerSaysItTakesTwo() {
        var h = explaining([backSpec(), pinch])
        h.frame(0, [(1, 0.01, 0.5)])
        #expect(h.engine.explanations?.contains(.ignored(transition: 1, time: 0,
                                                         why: .tooFewContacts(free: 1, down: 1, fingers: 2))) == true)
        #expect(Disregard.tooFewContacts(free: 1, down: 1, fingers: 2).text == "it takes 2 fingers; 1 was down")
        // No touch-down, nothing said: a moving finger is not news.
        h.engine.explanations = []
        h.frame(0.01, [(1, 0.02, 0.5)])
        #expect(h.engine.explanations?.contains { if case .ignored = $0 { true } else { false } } == false)
    }

    @Test func contactsHeldByAnotherGestureAreNotFree() {
        var h = explaining([backSpec(), pinch])
        h.drag(ramp(from: 0.01, to: 0.2, t0: 0, t1: 0.2))
        h.engine.explanations = []
        // back holds contact 1; a second finger makes two down, one free.
        h.frame(0.21, [(1, 0.2, 0.5), (2, 0.6, 0.5)])
        #expect(h.engine.explanations?.contains(.ignored(transition: 1, time: 0.21,
                                                         why: .tooFewContacts(free: 1, down: 2, fingers: 2))) == true)
        #expect(Disregard.tooFewContacts(free: 1, down: 2, fingers: 2).text
                == "it takes 2 fingers; 1 was down (1 held by another gesture)")
    }

    @Test func aTransitionBoundToAnotherDeviceSaysSo() {
        var spec = backSpec()
        spec.device = "/dev/input/by-id/left-panel"
        var h = explaining([spec])
        h.frame(0, [(1, 0.01, 0.5)])
        #expect(h.engine.explanations?.last == .ignored(transition: 0, time: 0, why: .otherDevice("/dev/input/by-id/left-panel")))
    }

    @Test func nothingIsCollectedUnlessAsked() {
        var h = EngineHarness([backSpec(), pinch])
        h.frame(0, [(1, 0.01, 0.5)])
        #expect(h.engine.explanations == nil)
    }
}
