/// Numbers of expectation files and `verify`'s messages: rounding to a
/// number of decimals, and fixed-point text without an exponent.
enum ExpectationNumber {
    /// `value` rounded to `decimals` places (halves away from zero), never `-0.0`.
    static func rounded(_ value: Double, decimals: Int) -> Double {
        guard value.isFinite else { return value }
        let scale = power(decimals)
        return (value * scale).rounded() / scale + 0.0
    }

    /// `value` with at most `decimals` places, trailing zeros dropped but
    /// one kept: `0.66`, `1.0`, `-0.0412`. Non-finite values as Swift writes them.
    static func text(_ value: Double, decimals: Int) -> String {
        let r = rounded(value, decimals: decimals)
        let scale = power(decimals)
        // Only what fits Int64 once scaled goes the exact way.
        guard r.isFinite, abs(r) * scale < 9e18 else { return r.description }
        let scaled = Int64((abs(r) * scale).rounded())
        let whole = scaled / Int64(scale)
        var fraction = String(scaled % Int64(scale))
        fraction = String(repeating: "0", count: max(0, decimals - fraction.count)) + fraction
        while fraction.count > 1, fraction.hasSuffix("0") { fraction.removeLast() }
        if fraction.isEmpty { fraction = "0" }
        return (r < 0 ? "-" : "") + String(whole) + "." + fraction
    }

    private static func power(_ decimals: Int) -> Double {
        var scale = 1.0
        for _ in 0..<max(0, decimals) { scale *= 10 }
        return scale
    }
}
