/// One recording of a `verify` run checked against an expectation file:
/// what it did, and whether and how that differs.
public struct RecordingCheck: Sendable, Equatable {
    /// How the recording compares.
    public enum Result: Sendable, Equatable {
        case matches
        /// The differences, by gesture, in order (never empty).
        case differs([GestureDifference])
        /// The expectation file has no entry for the recording.
        case noExpectation
    }

    /// The recording as named on the command line.
    public var recording: String
    /// What the run ended, in order.
    public var outcomes: [GestureOutcome]
    public var result: Result

    /// Compares `outcomes` with `expectation` (nil: the file has none for `recording`).
    public init(recording: String, outcomes: [GestureOutcome], expectation: RecordingExpectation?) {
        self.recording = recording
        self.outcomes = outcomes
        if let expectation {
            let differences = ExpectationComparison.differences(expected: expectation.gestures, actual: outcomes)
            result = differences.isEmpty ? .matches : .differs(differences)
        } else {
            result = .noExpectation
        }
    }

    public var passed: Bool {
        switch result {
        case .matches: return true
        case .differs, .noExpectation: return false
        }
    }

    /// `ok  FILE (N gestures)`, or `FAIL FILE` and a line per difference;
    /// `expectations` names the file in "no expectation" lines. Each line ends in `\n`.
    public func report(expectations: String) -> String {
        switch result {
        case .matches:
            return "ok  \(recording) (\(Self.count(outcomes.count)))\n"
        case .differs(let differences):
            return "FAIL \(recording)\n" + differences.map { "  \($0)\n" }.joined()
        case .noExpectation:
            let got = outcomes.isEmpty
                ? "no gestures"
                : outcomes.map(\.description).joined(separator: "; ")
            return "FAIL \(recording)\n  no expectation for \(recording) in \(expectations); it gave \(got)\n"
        }
    }

    /// `verify: N recordings, M failed`.
    public static func summary(_ checks: [RecordingCheck]) -> String {
        let failed = checks.filter { !$0.passed }.count
        return "verify: \(checks.count) recording\(checks.count == 1 ? "" : "s"), \(failed) failed\n"
    }

    /// `1 gesture`, `0 gestures`.
    static func count(_ gestures: Int) -> String {
        "\(gestures) gesture\(gestures == 1 ? "" : "s")"
    }
}
