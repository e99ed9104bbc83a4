import Testing
@testable import TransitionEngine

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
}
