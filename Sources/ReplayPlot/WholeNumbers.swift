/// Rounding to whole numbers without the C math library: `Double.rounded(_:)`
/// calls libm's `floor`/`ceil`/`round`, which a target with only the standard
/// library may not link. A double of magnitude 2^52 or more is already whole;
/// below that the truncating integer conversion is exact.
enum WholeNumbers {
    private static let alreadyWhole = 4_503_599_627_370_496.0   // 2^52

    /// The largest whole number ≤ `value` (non-finite values are returned as they are).
    static func down(_ value: Double) -> Double {
        guard value.isFinite, abs(value) < alreadyWhole else { return value }
        let truncated = Double(Int64(value))
        return truncated > value ? truncated - 1 : truncated
    }

    /// The smallest whole number ≥ `value`.
    static func up(_ value: Double) -> Double {
        guard value.isFinite, abs(value) < alreadyWhole else { return value }
        let truncated = Double(Int64(value))
        return truncated < value ? truncated + 1 : truncated
    }

    /// The nearest whole number, halves away from zero.
    static func nearest(_ value: Double) -> Double {
        guard value.isFinite, abs(value) < alreadyWhole else { return value }
        let magnitude = abs(value)
        let whole = down(magnitude)
        let rounded = magnitude - whole >= 0.5 ? whole + 1 : whole
        return value < 0 ? -rounded : rounded
    }
}
