/// How one gesture of a run differs from its expectation. Gestures are
/// compared by position: the Nth `ended` of the run with the Nth expected.
public enum GestureDifference: Sendable, Equatable, CustomStringConvertible {
    /// Gesture `index` (from 1) ended otherwise than expected.
    case differs(index: Int, expected: GestureExpectation, actual: GestureOutcome)
    /// The run ended fewer gestures: gesture `index` was expected.
    case missing(index: Int, expected: GestureExpectation)
    /// The run ended more gestures: gesture `index` was not expected.
    case unexpected(index: Int, actual: GestureOutcome)

    /// `gesture 2: expected back finish (released) at 0.66 ± 0.01, got back cancel (released) at 0.41`.
    public var description: String {
        switch self {
        case .differs(let index, let expected, let actual):
            return "gesture \(index): expected \(expected), got \(Self.text(actual, against: expected))"
        case .missing(let index, let expected):
            return "gesture \(index): expected \(expected), got nothing"
        case .unexpected(let index, let actual):
            return "gesture \(index): got \(actual), not expected"
        }
    }

    /// The outcome, its progress to 4 decimals, or more when 4 would hide
    /// that it is out of `expected`'s tolerance.
    static func text(_ actual: GestureOutcome, against expected: GestureExpectation) -> String {
        let shown = actual.description
        guard !ExpectationComparison.isWithinTolerance(actual.progress, of: expected),
              ExpectationComparison.isWithinTolerance(
                  ExpectationNumber.rounded(actual.progress, decimals: ExpectationFile.writtenDecimals), of: expected)
        else { return shown }
        return actual.text(decimals: 9)
    }
}

/// Expected gestures against a run's outcomes.
public enum ExpectationComparison {
    /// Slack for binary rounding: `0.67` is within `0.01` of `0.66`.
    static let slack = 1e-9

    /// Every difference between `expected` and `actual`, by position, in
    /// order; empty when they match: same transition, decision and reason,
    /// and `|progress - expected| <= tolerance`, for each gesture, and as many.
    public static func differences(expected: [GestureExpectation], actual: [GestureOutcome]) -> [GestureDifference] {
        var differences: [GestureDifference] = []
        for index in 0..<max(expected.count, actual.count) {
            let number = index + 1
            if index >= actual.count {
                differences.append(.missing(index: number, expected: expected[index]))
            } else if index >= expected.count {
                differences.append(.unexpected(index: number, actual: actual[index]))
            } else if !matches(actual[index], expected[index]) {
                differences.append(.differs(index: number, expected: expected[index], actual: actual[index]))
            }
        }
        return differences
    }

    /// Whether one outcome is what was expected (its target too, when the
    /// expectation gives one).
    public static func matches(_ actual: GestureOutcome, _ expected: GestureExpectation) -> Bool {
        actual.transition == expected.transition && actual.decision == expected.decision
            && actual.reason == expected.reason && isWithinTolerance(actual.progress, of: expected)
            && (expected.target == nil || sameTarget(actual.target, expected.target))
    }

    /// Targets are snap points the wire writes to six decimals: equal within that.
    public static func sameTarget(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let a?, let b?): return abs(a - b) <= targetSlack
        case (nil, _?), (_?, nil): return false
        }
    }

    /// Half of the wire's last decimal.
    static let targetSlack = 5e-7

    static func isWithinTolerance(_ progress: Double, of expected: GestureExpectation) -> Bool {
        abs(progress - expected.progress) <= expected.tolerance + slack
    }
}
