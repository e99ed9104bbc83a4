import Testing
@testable import TransitionConfig
import Engine

/// `verify --corpus`'s comparison of two runs of a recording and its
/// report: what counts as a change, and the text, sorted by path.
@Suite("Corpus comparison")
struct CorpusComparisonTests {
    static func back(_ decision: Decision, _ progress: Double, target: Double? = nil,
                     transition: String = "back") -> GestureOutcome {
        GestureOutcome(transition: transition, decision: decision, reason: .released, progress: progress, target: target)
    }

    static func compare(_ old: [GestureOutcome], _ new: [GestureOutcome], tolerance: Double = 0.01) -> RecordingComparison {
        RecordingComparison(recording: "r.events", baseline: old, candidate: new, tolerance: tolerance)
    }

    @Test func sameOutcomesWithinTheToleranceAreUnchanged() {
        #expect(!Self.compare([Self.back(.finish, 0.66)], [Self.back(.finish, 0.665)]).changed)
        #expect(!Self.compare([Self.back(.finish, 0.66)], [Self.back(.finish, 0.67)]).changed, "exactly the tolerance")
        #expect(!Self.compare([], []).changed)
    }

    @Test func eachPartOfAnOutcomeIsItsOwnKind() {
        #expect(Self.compare([Self.back(.cancel, 0.27)], [Self.back(.finish, 0.27)]).changes.map(\.kinds) == [[.decision]])
        #expect(Self.compare([Self.back(.finish, 0.5)], [Self.back(.finish, 0.6)]).changes.map(\.kinds) == [[.progress]])
        #expect(Self.compare([Self.back(.finish, 0.5)], [Self.back(.finish, 0.6)], tolerance: 0.2).changes.isEmpty)
        #expect(Self.compare([Self.back(.snap, 0.4, target: 0.5)], [Self.back(.snap, 0.4, target: 1)])
            .changes.map(\.kinds) == [[.target]])
        #expect(Self.compare([Self.back(.finish, 0.5)], [Self.back(.cancel, 0.9, transition: "forward")])
            .changes.map(\.kinds) == [[.transition, .decision, .progress]])
    }

    @Test func gesturesAddedOrRemovedAreChangesByPosition() {
        let one = [Self.back(.finish, 0.66)]
        let two = one + [Self.back(.cancel, 0.2)]
        #expect(Self.compare(one, two).changes.map(\.kinds) == [[.added]])
        #expect(Self.compare(two, one).changes.map(\.kinds) == [[.removed]])
        #expect(Self.compare(two, one).changes.first?.index == 2)
    }

    @Test func reportSortsByPathAndListsOnlyChangedRecordings() {
        let changed = RecordingComparison(recording: "b/x.events", baseline: [Self.back(.cancel, 0.2652)],
                                          candidate: [Self.back(.finish, 0.2652)], tolerance: 0.01)
        let removed = RecordingComparison(recording: "a.events", baseline: [Self.back(.finish, 1)],
                                          candidate: [], tolerance: 0.01)
        let same = RecordingComparison(recording: "c.events", baseline: [], candidate: [], tolerance: 0.01)
        let report = CorpusReport([same, changed, removed])
        #expect(report.comparisons.map(\.recording) == ["a.events", "b/x.events", "c.events"])
        #expect(report.text == """
        changed a.events
          gesture 1: back finish (released) at 1.0  ⇒  nothing  [removed]
        changed b/x.events
          gesture 1: back cancel (released) at 0.2652  ⇒  back finish (released) at 0.2652  [decision]
        corpus: 3 recordings played, 2 changed, 1 unchanged
        changed gestures by kind: decision 1, removed 1

        """)
        #expect(CorpusReport([same]).text == "corpus: 1 recording played, 0 changed, 1 unchanged\n")
    }

    @Test func snapOutcomesShowTheirTarget() {
        #expect(Self.back(.snap, 0.43, target: 0.5, transition: "drawer").description
            == "drawer snap (released) at 0.43 → 0.5")
    }
}
