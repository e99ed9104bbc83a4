/// "Nice" axis steps: 1, 2, 2.5 or 5 × 10^k, and the tick values and label
/// decimals that go with them. Standard library only (no `log10`), never traps.
struct NiceStep: Sendable, Equatable {
    /// The step between ticks.
    var value: Double
    /// Decimals a tick label needs to show the step exactly.
    var decimals: Int

    /// The smallest nice step of at least `minimum` (> 0, finite), else `nil`.
    init?(atLeast minimum: Double) {
        guard minimum.isFinite, minimum > 1e-300 else { return nil }
        // 10^exponent ≤ minimum < 10^(exponent + 1), from the binary exponent, then corrected.
        var exponent = Int(WholeNumbers.down(Double(minimum.exponent) * 0.30103))
        while NiceStep.powerOfTen(exponent) > minimum { exponent -= 1 }
        while NiceStep.powerOfTen(exponent + 1) <= minimum { exponent += 1 }
        let power = NiceStep.powerOfTen(exponent)
        for (mantissa, extra) in [(1.0, 0), (2.0, 0), (2.5, 1), (5.0, 0), (10.0, 0)] where mantissa * power >= minimum {
            let decimalExponent = mantissa == 10 ? exponent + 1 : exponent
            let step = mantissa == 10 ? NiceStep.powerOfTen(exponent + 1) : mantissa * power
            guard step.isFinite else { return nil }
            value = step
            decimals = min(9, max(0, -decimalExponent) + extra)
            return
        }
        return nil
    }

    /// 10^exponent, exact for |exponent| ≤ 22.
    static func powerOfTen(_ exponent: Int) -> Double {
        let clamped = min(max(exponent, -330), 330)
        var power = 1.0
        for _ in 0..<abs(clamped) { power *= 10 }
        return clamped < 0 ? 1 / power : power
    }

    /// The multiples of the step within `lower…upper` (at most `limit` of them), or
    /// `nil` when they cannot be counted (bounds too far from zero for the step).
    func ticks(from lower: Double, to upper: Double, limit: Int = 40) -> [Double]? {
        let first = WholeNumbers.up(lower / value), last = WholeNumbers.down(upper / value)
        guard first.isFinite, last.isFinite, abs(first) < 1e15, abs(last) < 1e15, last >= first,
              last - first < Double(limit) else { return nil }
        return (Int64(first)...Int64(last)).map { Double($0) * value }
    }
}
