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
    /// Recordings searched.
    public var total: Int
    /// With the best values: each recording still wrong and its differences.
    public var wrong: [(recording: String, differences: [GestureDifference])]

    public init(parameters: [TunedParameter], base: [Double], baseRight: Int, result: TuningSearch.Result,
                total: Int, wrong: [(recording: String, differences: [GestureDifference])]) {
        self.parameters = parameters
        self.base = base
        self.baseRight = baseRight
        self.result = result
        self.total = total
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
                + "these conflict with the others:\n"
            for (recording, differences) in wrong {
                out += "  \(recording)\n" + differences.map { "    \($0)\n" }.joined()
            }
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
            let line = parameter.key.declaration.entry(result.values[i])?.line ?? parameter.key.rawValue
            out += line + "  # \(sweep.best) of \(total) right from "
                + ExpectationNumber.text(sweep.interval.lowerBound, decimals: 4) + " to "
                + ExpectationNumber.text(sweep.interval.upperBound, decimals: 4)
                + " (base " + ExpectationNumber.text(base[i], decimals: 6) + ")\n"
        }
        return out
    }
}
