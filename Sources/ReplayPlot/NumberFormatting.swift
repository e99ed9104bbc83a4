/// Numbers as the SVG writes them, without Foundation: a fixed number of
/// decimals, rounded half away from zero, so the same value always gives the
/// same bytes. Never traps: non-finite values write as "0", values too large
/// for the integer path are written in a short exponent form ("1.8e+308").
enum NumberFormatting {
    /// The largest magnitude (after scaling) written through integers.
    private static let integerLimit = 9.0e15

    /// `value` with exactly `decimals` (0…9) places: `fixed(0.5, decimals: 2)` is "0.50".
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "0" }
        let places = min(max(decimals, 0), 9)
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = WholeNumbers.nearest(value * Double(scale))
        guard abs(scaled) < integerLimit else { return scientific(value) }
        let units = Int64(scaled)
        let magnitude = units < 0 ? -units : units
        var text = units < 0 ? "-" : ""
        text += String(magnitude / scale)
        if places > 0 {
            let fraction = String(magnitude % scale)
            text += "."
            text += String(repeating: "0", count: places - fraction.count)
            text += fraction
        }
        return text
    }

    /// `value` with three significant digits and a decimal exponent: "1.8e+308", "−" written "-".
    static func scientific(_ value: Double) -> String {
        guard value.isFinite, value != 0 else { return "0" }
        let magnitude = abs(value)
        var exponent = Int(WholeNumbers.down(Double(magnitude.exponent) * 0.30103))
        while exponent > -330, NiceStep.powerOfTen(exponent) > magnitude { exponent -= 1 }
        while exponent < 330, NiceStep.powerOfTen(exponent + 1) <= magnitude { exponent += 1 }
        var mantissa = magnitude / NiceStep.powerOfTen(exponent)
        if !mantissa.isFinite || mantissa <= 0 { mantissa = 1 }
        var digits = trimmed(fixed(mantissa, decimals: 2), keeping: 0)
        if digits == "10" { digits = "1"; exponent += 1 }
        return (value < 0 ? "-" : "") + digits + "e" + (exponent < 0 ? "-" : "+") + String(abs(exponent))
    }

    /// An SVG coordinate: rounded to 0.01, trailing zeros dropped ("64", "64.5", "64.25").
    static func coordinate(_ value: Double) -> String {
        trimmed(fixed(value, decimals: 2), keeping: 0)
    }

    /// A number in a label: rounded to `maxDecimals`, trailing zeros dropped down to
    /// `minDecimals`, a negative sign written as "−" (U+2212).
    static func label(_ value: Double, maxDecimals: Int = 3, minDecimals: Int = 0) -> String {
        let text = trimmed(fixed(value, decimals: maxDecimals), keeping: minDecimals)
        return text.hasPrefix("-") ? "−" + text.dropFirst() : text
    }

    /// Drops trailing zeros after the point, keeping at least `keeping` decimals
    /// (and the point only when a decimal stays). Exponent forms are left alone.
    static func trimmed(_ text: String, keeping: Int) -> String {
        guard let point = text.firstIndex(of: "."), !text.contains("e") else { return text }
        var characters = Array(text)
        let pointOffset = text.distance(from: text.startIndex, to: point)
        while characters.count - pointOffset - 1 > keeping, characters.last == "0" {
            characters.removeLast()
        }
        if characters.last == "." { characters.removeLast() }
        var result = String(characters)
        if result == "-0" { result = "0" }
        return result
    }
}
