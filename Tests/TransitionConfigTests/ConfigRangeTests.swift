import Testing
@testable import TransitionConfig
import Engine

/// One bounded key: where it goes, values just inside and just outside its
/// range, and how to read it back from the configuration.
struct RangeCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// Text before the key, ending in a newline; the key goes on the line after.
    var before: String
    /// Text after the key.
    var after: String = ""
    var keyPath: String
    var key: String
    var inside: [String]
    var outside: [String]
    var read: @Sendable (EngineConfiguration) -> Double?

    var testDescription: String { name }
    var line: Int { before.filter { $0 == "\n" }.count + 1 }
}

private func first(_ config: EngineConfiguration) -> TransitionSpec? { config.transitions.first }

private let rangeCases: [RangeCase] = [
    RangeCase(name: "frame_rate", before: "", after: Fixture.edgePan, keyPath: "frame_rate", key: "frame_rate",
              inside: ["1", "1000", "24"], outside: ["0", "-1", "0.999", "1e-300", "1000.001"], read: { $0.frameRate }),
    RangeCase(name: "fingers (edge-pan)", before: Fixture.edgePan, keyPath: "transition[1].fingers", key: "fingers",
              inside: ["1", "10"], outside: ["0", "11", "-1"], read: { first($0).map { Double($0.gesture.fingers) } }),
    RangeCase(name: "fingers (swipe)", before: Fixture.swipe, keyPath: "transition[1].fingers", key: "fingers",
              inside: ["1", "10"], outside: ["0", "11"], read: { first($0).map { Double($0.gesture.fingers) } }),
    RangeCase(name: "fingers (pinch)", before: Fixture.pinchIn, keyPath: "transition[1].fingers", key: "fingers",
              inside: ["2"], outside: ["1", "3"], read: { first($0).map { Double($0.gesture.fingers) } }),
    RangeCase(name: "edge_margin", before: Fixture.edgePan, keyPath: "transition[1].edge_margin", key: "edge_margin",
              inside: ["0.0001", "0.5"], outside: ["0", "0.5001", "-0.1"], read: {
                  guard case .edgePan(_, _, let margin, _)? = first($0)?.gesture else { return nil }
                  return margin
              }),
    RangeCase(name: "activation", before: Fixture.edgePan, keyPath: "transition[1].activation", key: "activation",
              inside: ["0", "0.999"], outside: ["-0.001", "1"], read: { first($0)?.activation }),
    RangeCase(name: "distance", before: Fixture.edgePan, keyPath: "transition[1].distance", key: "distance",
              inside: ["0.001", "10"], outside: ["0", "10.001"], read: { first($0)?.distance }),
    RangeCase(name: "finish_threshold", before: Fixture.edgePan, keyPath: "transition[1].finish_threshold",
              key: "finish_threshold", inside: ["0", "1"], outside: ["-0.001", "1.001"],
              read: { first($0)?.finishThreshold }),
    RangeCase(name: "flick_velocity", before: Fixture.edgePan, keyPath: "transition[1].flick_velocity",
              key: "flick_velocity", inside: ["0.001", "1000"], outside: ["0", "-1", "1000.001"], read: { first($0)?.flickVelocity }),
    RangeCase(name: "duration", before: Fixture.edgePan, keyPath: "transition[1].duration", key: "duration",
              inside: ["0.001", "60"], outside: ["0", "60.001"], read: { first($0)?.duration }),
    RangeCase(name: "completion_speed", before: Fixture.edgePan, keyPath: "transition[1].completion_speed",
              key: "completion_speed", inside: ["0.1", "100"], outside: ["0", "0.099", "1e-300", "100.001"],
              read: { first($0)?.completionSpeed }),
    RangeCase(name: "damping_ratio", before: Fixture.spring, keyPath: "transition[1].damping_ratio",
              key: "damping_ratio", inside: ["0.05", "10"], outside: ["0", "0.049", "10.001"], read: {
                  guard case .spring(let damping, _)? = first($0)?.completionCurve else { return nil }
                  return damping
              }),
    RangeCase(name: "stiffness", before: Fixture.spring, keyPath: "transition[1].stiffness", key: "stiffness",
              inside: ["1", "100000"], outside: ["0", "0.999", "100000.1"], read: {
                  guard case .spring(_, let stiffness)? = first($0)?.completionCurve else { return nil }
                  return stiffness
              }),
    RangeCase(name: "keyframe start", before: Fixture.keyframe, keyPath: "transition[1].keyframe[1].start",
              key: "start", inside: ["0", "0.999"], outside: ["-0.001", "1.001"],
              read: { first($0)?.keyframes.first?.start }),
    RangeCase(name: "keyframe duration", before: Fixture.keyframe, keyPath: "transition[1].keyframe[1].duration",
              key: "duration", inside: ["0.001", "1", "1.0000000001"], outside: ["0", "-1"],
              read: { first($0)?.keyframes.first?.duration }),
    RangeCase(name: "keyframe from", before: Fixture.keyframe, keyPath: "transition[1].keyframe[1].from",
              key: "from", inside: ["-1e9", "1e9"], outside: ["inf", "-inf", "nan", "1e400", "1e308", "-1000000001"],
              read: { first($0)?.keyframes.first?.from }),
    RangeCase(name: "keyframe to", before: Fixture.keyframe, keyPath: "transition[1].keyframe[1].to",
              key: "to", inside: ["-5", "0.5", "1e9"], outside: ["nan", "+inf", "-1e308"], read: { first($0)?.keyframes.first?.to }),
]

@Test(arguments: rangeCases)
func valuesJustInsideTheRangeAreAccepted(_ testCase: RangeCase) throws {
    for value in testCase.inside {
        let text = testCase.before + "\(testCase.key) = \(value)\n" + testCase.after
        let config = try parseValid(text)
        let expected = try #require(Double(value))
        #expect(testCase.read(config) == expected, "\(testCase.key) = \(value)")
    }
}

@Test(arguments: rangeCases)
func valuesJustOutsideTheRangeNameLineAndKey(_ testCase: RangeCase) {
    for value in testCase.outside {
        let text = testCase.before + "\(testCase.key) = \(value)\n" + testCase.after
        expectError(text, line: testCase.line, key: testCase.keyPath, "(got \(value))")
    }
}

@Test func rangeMessagesSayWhatIsAllowed() {
    expectError(Fixture.edgePan + "distance = 11\n", line: 5, key: "transition[1].distance",
                "must be > 0 and <= 10 (got 11)")
    expectError(Fixture.edgePan + "activation = 1\n", line: 5, key: "transition[1].activation",
                "must be >= 0 and < 1 (got 1)")
    expectError(Fixture.edgePan + "fingers = 11\n", line: 5, key: "transition[1].fingers",
                "must be from 1 to 10 (got 11)")
    expectError(Fixture.edgePan + "duration = inf\n", line: 5, key: "transition[1].duration",
                "must be a finite number (got inf)")
}

@Test func pinchWithThreeFingersIsAnError() {
    expectError(Fixture.pinchIn + "fingers = 3\n", line: 5, key: "transition[1].fingers",
                "must be 2: a pinch uses exactly 2 fingers (got 3)")
}

@Test func keyframeStartPlusDurationMustFitInOne() throws {
    _ = try parseValid(Fixture.keyframe + "start = 0.5\nduration = 0.5\n")
    _ = try parseValid(Fixture.keyframe + "start = 0.5\nduration = 0.5000000001\n")
    expectError(Fixture.keyframe + "start = 0.5\nduration = 0.50001\n", line: 8,
                key: "transition[1].keyframe[1].duration", "start + duration must be <= 1")
    expectError(Fixture.keyframe + "duration = 0.2\nstart = 0.9\n", line: 7,
                key: "transition[1].keyframe[1].duration", "start + duration must be <= 1")
}

@Test func keyframeStartOfOneLeavesNoDefaultDuration() {
    expectError(Fixture.keyframe + "start = 1\n", line: 5, key: "transition[1].keyframe[1].duration",
                "defaults to 1 - start = 0.0 here, which must be > 0")
}
