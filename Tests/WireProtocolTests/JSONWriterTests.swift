import Testing
@testable import WireProtocol

private func text(_ body: (JSONWriter) -> Void) -> String {
    let w = JSONWriter(capacity: 8)
    body(w)
    return String(decoding: w.bytes, as: UTF8.self)
}

@Suite("JSON writing")
struct JSONWriterTests {
    @Test(arguments: [
        (0.0, "0"), (-0.0, "0"), (1.0, "1"), (0.5, "0.5"), (0.021, "0.021"), (-2.359276, "-2.359276"),
        (1e-7, "0"), (4e-7, "0"), (6e-7, "0.000001"), (-6e-7, "-0.000001"), (0.1234566, "0.123457"),
        (1330495970.996848, "1330495970.996848"), (123456.0, "123456"), (0.000100, "0.0001"),
    ])
    func numbers(_ value: Double, _ expected: String) {
        #expect(text { $0.number(value) } == expected)
    }

    /// The six-decimal path rounds half away from zero without libm's
    /// `round`: on halves, near halves, across magnitudes and signs it
    /// writes what `(value * 1e6).rounded()` gives.
    @Test func numbersRoundAsRoundedDoes() {
        func reference(_ value: Double) -> String {
            let scaled = (value * 1_000_000).rounded()
            if scaled == 0 { return "0" }
            let micros = Int64(scaled)
            let sign = micros < 0 ? "-" : ""
            let magnitude = micros.magnitude
            var fraction = String(magnitude % 1_000_000)
            fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            return sign + String(magnitude / 1_000_000) + (fraction.isEmpty ? "" : "." + fraction)
        }
        var values: [Double] = [0.5e-6, -0.5e-6, 1.5e-6, 2.5e-6, -2.5e-6, 0.4999999e-6, 1.0000005, -1.0000005,
                                0.9999995, 8.9999999999995e12, -8.9999999999995e12, 4503599627.3704965,
                                0.1 + 0.2, 1 / 3, -1 / 3, 2.0000004999999999, .ulpOfOne, -.ulpOfOne]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let exponent = Double(Int.random(in: -9...12, using: &generator))
            values.append(Double.random(in: -1...1, using: &generator) * pow10(exponent))
            // A half micro exactly, or a hair either side of one.
            let half = (Double(Int.random(in: -2_000_000...2_000_000, using: &generator)) + 0.5) / 1_000_000
            values.append(half)
            values.append(half.nextUp)
            values.append(half.nextDown)
        }
        for value in values {
            #expect(text { $0.number(value) } == reference(value), "\(value)")
        }
    }

    private func pow10(_ e: Double) -> Double {
        var r = 1.0
        for _ in 0..<Int(abs(e)) { r *= 10 }
        return e < 0 ? 1 / r : r
    }

    @Test func nonFiniteNumbersStayValidJSON() {
        #expect(text { $0.number(.nan) } == "0")
        #expect(text { $0.number(.infinity) } == "0")
    }

    /// Beyond the six-decimal path the writer falls back to Swift's own
    /// shortest form, which is valid JSON; it never traps (a release
    /// velocity of 1e19 used to kill the daemon here).
    @Test(arguments: [
        (9e12, "9000000000000"), (1e19, "1e+19"), (-1e19, "-1e+19"), (1e308, "1e+308"),
        (-1.7976931348623157e308, "-1.7976931348623157e+308"), (9.3e18, "9.3e+18"),
    ])
    func largeNumbersStayValidJSON(_ value: Double, _ expected: String) throws {
        let written = text { $0.number(value) }
        #expect(written == expected)
        #expect(Double(written) == value)
    }

    @Test func integers() {
        #expect(text { $0.integer(Int64.min) } == "-9223372036854775808")
        #expect(text { $0.integer(0) } == "0")
        #expect(text { $0.integer(UInt64(18_446_744_073_709_551_615)) } == "18446744073709551615")
        #expect(text { $0.integer(-42) } == "-42")
    }

    @Test func stringsAreEscaped() {
        #expect(text { $0.string("a\"b\\c\nd\u{1}é") } == "\"a\\\"b\\\\c\\nd\\u0001é\"")
    }

    @Test func growsPastItsCapacity() {
        let w = JSONWriter(capacity: 8)
        for _ in 0..<1000 { w.raw("0123456789") }
        #expect(w.count == 10_000)
        w.reset()
        #expect(w.count == 0)
    }
}
