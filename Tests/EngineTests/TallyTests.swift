import Testing
@testable import Engine

/// The engine's tally (what the metrics read): interactions begun and
/// ended per transition, decision and reason, candidates rejected by why.
@Suite("Engine tally")
struct TallyTests {
    @Test func beginsEndsAndRejectionsAreCountedByTransition() {
        var h = EngineHarness([backSpec()])
        // A drag from the left edge past half: back finishes on release.
        h.drag(ramp(from: 0.01, to: 0.8, t0: 0, t1: 0.5))
        h.frame(0.51, [])
        _ = h.settle()
        // A touch-down in the middle: back passes over it (outside the edge).
        h.drag(ramp(from: 0.5, to: 0.6, t0: 2, t1: 2.2), id: 2)
        h.frame(2.21, [])
        let tally = h.engine.tally
        #expect(tally.began == ["back": 1])
        #expect(tally.ended == [EngineTally.Outcome(transition: "back", decision: .finish, reason: .released): 1])
        #expect(tally.rejected == [EngineTally.Rejected(transition: "back", reason: "outside-edge"): 1])
    }

    @Test func aCommandsRunAndShutdownAreCountedWithTheirReasons() {
        var h = EngineHarness([backSpec()])
        var events: [TransitionEvent] = []
        _ = h.engine.perform(.run(.finish), transition: 0, at: 0, into: &events)
        h.engine.advance(to: 5, into: &events)
        _ = h.engine.perform(.drive(progress: 0.4), transition: 0, at: 6, into: &events)
        h.engine.shutdown(at: 7, into: &events)
        #expect(h.engine.tally.ended == [
            EngineTally.Outcome(transition: "back", decision: .finish, reason: .command): 1,
            EngineTally.Outcome(transition: "back", decision: .cancel, reason: .shutdown): 1,
        ])
        #expect(h.engine.tally.began == ["back": 2])
        #expect(events.filter { $0.kind == .ended }.count == 2, "one count per ended event")
    }

    @Test func everyRejectionHasItsOwnKindName() {
        let all: [Rejection] = [
            .outsideEdge(edge: .left, at: 0.3, margin: 0.05),
            .outsideRange(edge: .left, at: 0.9, range: EdgeRange(start: 0, end: 0.5)),
            .tooManyContacts(count: 3, fingers: 1), .liftedBeforeActivation, .contactsChanged,
            .sideways(sideways: 0.04, along: 0.01), .notInterruptible, .disabled, .excluded(x: 0.02, y: 0.5),
        ]
        let kinds = all.map(\.kind)
        #expect(Set(kinds).count == all.count)
        #expect(kinds.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLowercase || $0 == "-" } })
    }
}
