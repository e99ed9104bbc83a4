import Testing
@testable import Engine

/// `enable`: a disabled transition recognises nothing, leaves a transition in
/// flight alone, and recognises again once enabled; the config's `enabled`
/// is where it starts.
@Suite("Enabling and disabling a transition")
struct EnableTests {
    @Test func aDisabledTransitionRecognisesNothingAndAnEnabledOneDoesAgain() {
        var h = EngineHarness([backSpec()])
        #expect(h.engine.perform(.setEnabled(false), transition: 0, at: 0, into: &h.events) == .done)
        #expect(!h.engine.configuration.transitions[0].enabled)
        h.drag(ramp(from: 0.01, to: 0.6, t0: 0, t1: 0.5))
        h.frame(0.6, [])
        #expect(h.events.isEmpty, "a left-edge drag while disabled: \(h.kinds())")
        #expect(h.engine.perform(.setEnabled(true), transition: 0, at: 1, into: &h.events) == .done)
        h.drag(ramp(from: 0.01, to: 0.6, t0: 1, t1: 1.5), id: 2)
        h.frame(1.6, [])
        h.settle()
        #expect(h.kinds().first == .began && h.kinds().last == .finished, "\(h.kinds())")
    }

    @Test func disablingLeavesATransitionInFlightToEndAsItWould() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.4, t0: 0, t1: 0.3))
        #expect(h.first(.began) != nil)
        _ = h.engine.perform(.setEnabled(false), transition: 0, at: 0.31, into: &h.events)
        h.drag(ramp(from: 0.41, to: 0.7, t0: 0.32, t1: 0.6))
        h.frame(0.7, [])
        h.settle()
        #expect(h.all(.changed).count > 20, "it kept following the finger")
        #expect(h.kinds().last == .finished)
        // And no new gesture after it.
        let count = h.events.count
        h.drag(ramp(from: 0.01, to: 0.6, t0: 2, t1: 2.5), id: 3)
        #expect(h.events.count == count)
    }

    @Test func theConfigSaysWhereItStarts() {
        var spec = backSpec()
        spec.enabled = false
        var h = EngineHarness([spec])
        h.drag(ramp(from: 0.01, to: 0.6, t0: 0, t1: 0.5))
        #expect(h.events.isEmpty)
    }

    /// Turned on while a finger is already down at the edge: that finger
    /// does not start it (the UI allowed "back" in the middle of a scroll).
    @Test func aFingerAlreadyDownWhenEnabledDoesNotStartIt() {
        var h = EngineHarness([backSpec()])
        _ = h.engine.perform(.setEnabled(false), transition: 0, at: 0, into: &h.events)
        h.drag(ramp(from: 0.01, to: 0.1, t0: 0, t1: 0.1))
        _ = h.engine.perform(.setEnabled(true), transition: 0, at: 0.11, into: &h.events)
        h.drag(ramp(from: 0.1, to: 0.6, t0: 0.12, t1: 0.5))
        h.frame(0.6, [])
        #expect(h.events.isEmpty, "\(h.kinds())")
        h.drag(ramp(from: 0.01, to: 0.6, t0: 1, t1: 1.5), id: 2)
        #expect(h.first(.began) != nil, "the next finger does")
    }

    /// New lengths at attach: nothing in flight moves or changes its
    /// lengths; an idle transition takes them at once, one in flight once idle.
    @Test func newLengthsMoveNothingInFlight() {
        var h = EngineHarness([backSpec()])
        _ = h.engine.perform(.run(.finish), transition: 0, at: 0, into: &h.events)
        var longer = h.engine.configuration
        longer.transitions[0].distance = 2
        h.engine.applyLengths(from: longer)
        #expect(h.engine.machines.count == 1 && h.engine.liveCount == 1, "no retiring copy")
        #expect(h.engine.configuration.transitions[0].distance == 2)
        #expect(h.engine.machines[0].spec.distance == 1, "the animation keeps what it began with")
        h.settle()
        h.frame(10, [])
        #expect(h.engine.machines[0].spec.distance == 2, "and takes the new once idle")
    }
}
