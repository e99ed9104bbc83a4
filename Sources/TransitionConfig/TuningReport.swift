/// What `transitiond tune` prints for a search: the values as config lines
/// under their `[[transition]]` names, each with how many recordings it gets
/// right over which interval; or, when no values get every recording right,
/// which recordings the best values still get wrong, and how.
public struct TuningReport: Sendable {
    public var parameters: [TunedParameter]
    /// The base config's values, one per parameter.
    public var base: [Double]
    public var baseRight: Int
    public var result: TuningSearch.Result
    /// The recordings searched, as given.
    public var recordings: [String]
    public var total: Int { recordings.count }
    /// With the best values: each recording still wrong and its differences.
    public var wrong: [(recording: String, differences: [GestureDifference])]

    public init(parameters: [TunedParameter], base: [Double], baseRight: Int, result: TuningSearch.Result,
                recordings: [String], wrong: [(recording: String, differences: [GestureDifference])]) {
        self.parameters = parameters
        self.base = base
        self.baseRight = baseRight
        self.result = result
        self.recordings = recordings
        self.wrong = wrong
    }

    public var agrees: Bool { result.right == total && wrong.isEmpty }

    public var text: String {
        let keys = parameters.count
        var out = "tune: \(total) recording\(total == 1 ? "" : "s"), \(keys) key\(keys == 1 ? "" : "s"), "
            + "\(result.evaluations) sets of values tried\n"
        out += "base config: \(baseRight) of \(total) right\n"
        guard agrees else {
            out += "no values agree with every recording: the best found gets \(result.right) of \(total) right; "
                + "\(wrong.count == 1 ? "this stays" : "these stay") wrong:\n"
            for (recording, differences) in wrong {
                out += "  \(recording)\n" + differences.map { "    \($0)\n" }.joined()
            }
            let right = recordings.filter { r in !wrong.contains { $0.recording == r } }
            out += "conflicting with " + (right.isEmpty ? "one another" : right.joined(separator: ", ")) + "\n"
            out += "best found (not a suggestion):\n" + lines
            return out
        }
        out += "suggested: \(result.right) of \(total) right\n" + lines
        return out
    }

    /// `[[transition]]`, `name = "back"` and each key's line, with its interval as a comment.
    var lines: String {
        var out = ""
        var current: String? = nil
        for (i, parameter) in parameters.enumerated() {
            if parameter.transition != current {
                current = parameter.transition
                out += "\n" + TransitionKeys.table.schema.header + "\n"
                out += (TransitionKeys.name.entry(parameter.transition)?.line ?? "") + "\n"
            }
            let sweep = result.sweeps[i]
            let line = parameter.key.declaration.entry(result.values[i])?.line ?? parameter.key.name
            let base = " (base " + ExpectationNumber.text(base[i], decimals: 6) + ")\n"
            if sweep.interval == parameter.key.range {
                out += line + "  # \(sweep.best) of \(total) right anywhere: no recording depends on it" + base
            } else {
                out += line + "  # \(sweep.best) of \(total) right from "
                    + ExpectationNumber.text(sweep.interval.lowerBound, decimals: 4) + " to "
                    + ExpectationNumber.text(sweep.interval.upperBound, decimals: 4) + base
            }
        }
        return out
    }
}
