import Testing
@testable import TransitionConfig
import Engine

/// `tune`'s search rule on made-up recordings: counts as functions of the
/// values, with no replay.
@Suite("Tuning search")
struct TuningSearchTests {
    static let threshold = TunedParameter(transition: "back", key: .finishThreshold)
    static let velocity = TunedParameter(transition: "back", key: .flickVelocity)

    @Test func takesTheCentreOfTheWidestAgreeingInterval() {
        // Right for thresholds in 0.3…0.7 (both recordings), one of two elsewhere.
        let result = TuningSearch(parameters: [Self.threshold]).run(start: [0.5]) { v in
            (v[0] >= 0.3 && v[0] <= 0.7) ? 2 : 1
        }
        #expect(result.right == 2)
        #expect(result.values == [0.5])
        #expect(abs(result.sweeps[0].interval.lowerBound - 0.3) < 0.005)
        #expect(abs(result.sweeps[0].interval.upperBound - 0.7) < 0.005)
    }

    @Test func anIntervalOpenAtOneEndKeepsAnAgreeingValue() {
        // From 0.3 to the range's end at 1: 0.4 agrees and stays; 0.2 does not, and moves to the centre.
        let agree = { (v: [Double]) in v[0] >= 0.3 ? 1 : 0 }
        #expect(TuningSearch(parameters: [Self.threshold]).run(start: [0.4], evaluate: agree).values == [0.4])
        let moved = TuningSearch(parameters: [Self.threshold]).run(start: [0.2], evaluate: agree).values[0]
        #expect(moved == 0.6 || moved == 0.7, "the centre, 0.65, with one decimal: \(moved)")
    }

    @Test func prefersTheWiderOfTwoIntervals() {
        // 0.1…0.2 and 0.4…0.9 both agree: the second is wider.
        let result = TuningSearch(parameters: [Self.threshold]).run(start: [0.15]) { v in
            (v[0] >= 0.1 && v[0] <= 0.2) || (v[0] >= 0.4 && v[0] <= 0.9) ? 3 : 2
        }
        #expect(result.values == [0.6] || result.values == [0.7], "the centre of 0.4…0.9, one decimal: \(result.values)")
        #expect(result.right == 3)
    }

    @Test func velocitiesAreCentredInLogarithms() {
        // Agreeing from 0.5 to 8 per second: the geometric centre is 2.
        let result = TuningSearch(parameters: [Self.velocity]).run(start: [1]) { v in
            (v[0] >= 0.5 && v[0] <= 8) ? 1 : 0
        }
        #expect(result.right == 1)
        #expect(abs(result.values[0] - 2) < 0.5, "\(result.values)")
    }

    @Test func aKeyNothingDependsOnKeepsItsValue() {
        let result = TuningSearch(parameters: [Self.threshold, Self.velocity]).run(start: [0.42, 1.3]) { v in
            v[0] >= 0.2 ? 1 : 0
        }
        #expect(result.values[1] == 1.3)
        #expect(result.sweeps[1].interval == TunedKey.flickVelocity.range)
    }

    @Test func keysDependingOnEachOtherAreFoundInRounds() {
        // Right only when threshold > 0.6 and velocity > 5: the first
        // round's threshold sweep sees nothing better until velocity moves.
        let result = TuningSearch(parameters: [Self.threshold, Self.velocity]).run(start: [0.5, 1]) { v in
            (v[0] > 0.6 ? 1 : 0) + (v[1] > 5 ? 1 : 0) + (v[0] > 0.6 && v[1] > 5 ? 1 : 0)
        }
        #expect(result.right == 3)
        #expect(result.values[0] > 0.6 && result.values[1] > 5)
    }

    @Test func whenNothingAgreesTheBestCountIsReported() {
        let result = TuningSearch(parameters: [Self.threshold]).run(start: [0.5]) { v in v[0] < 0.3 ? 1 : 0 }
        #expect(result.right == 1)
        #expect(result.values[0] < 0.3)
    }

    @Test func valuesAreWrittenWithFewDecimalsInsideTheirInterval() {
        let scale = TuningSearch.Scale(.finishThreshold)
        #expect(TuningSearch.roundest(in: 0.2652...1.0, scale: scale, range: 0...1) == 0.6)
        #expect(TuningSearch.roundest(in: 0.41...0.43, scale: scale, range: 0...1) == 0.42)
        // Never 0 for a key whose range starts above it.
        #expect(TuningSearch.roundest(in: 0.005...0.011, scale: scale, range: 0.005...0.5) == 0.008)
    }

    @Test func keysSetTheirTransitionAndKnowTheirDeclarations() {
        var spec = TransitionSpec(name: "back", gesture: .edgePan(edge: .left, fingers: 1, edgeMargin: 0.05))
        for key in TunedKey.allCases {
            key.set(0.123, in: &spec)
            #expect(key.value(in: spec) == 0.123)
        }
        let swipe = TransitionSpec(name: "overview", gesture: .swipe(direction: .up, fingers: 3))
        #expect(TunedKey.edgeMargin.value(in: swipe) == nil)
    }

    @Test func problemNamesTheKeysOfLabelledTransitions() throws {
        let engine = EngineConfiguration(transitions: [
            TransitionSpec(name: "back", gesture: .edgePan(edge: .left, fingers: 1, edgeMargin: 0.05)),
            TransitionSpec(name: "overview", gesture: .swipe(direction: .up, fingers: 3)),
        ])
        let problem = try TuningProblem(engine: engine, labels: ["overview", "overview"])
        #expect(problem.parameters == [TunedParameter(transition: "overview", key: .finishThreshold),
                                       TunedParameter(transition: "overview", key: .flickVelocity)])
        #expect(problem.engine(with: [0.7, 2]).transitions[1].finishThreshold == 0.7)
        #expect(throws: TuningProblem.UnknownTransition.self) { try TuningProblem(engine: engine, labels: ["zoom"]) }
    }
}
