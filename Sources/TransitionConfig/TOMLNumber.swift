/// Reading TOML integers and floats from a token's bytes.
///
/// Integers: optional sign, decimal digits, `_` only between digits, no
/// leading zero. Floats: an integer part, then `.digits` and/or an exponent
/// `e[+-]digits`. `inf` and `nan` are handled by the reader.
enum TOMLNumber {
    /// What a token turned out to be.
    enum Parsed: Equatable {
        case integer(Int)
        case float(Double)
        /// A well-formed integer that does not fit in 64 bits.
        case outOfRange
        /// Not a number.
        case invalid
    }

    static func parse(_ token: ArraySlice<UInt8>) -> Parsed {
        let end = token.endIndex
        var index = token.startIndex
        var negative = false
        if index < end, token[index] == UInt8(ascii: "+") || token[index] == UInt8(ascii: "-") {
            negative = token[index] == UInt8(ascii: "-")
            index += 1
        }

        // MARK: Integer part
        let integerStart = index
        guard let integerEnd = digitRun(token, from: index) else { return .invalid }
        let integerDigits = token[integerStart..<integerEnd].filter { $0 != UInt8(ascii: "_") }
        if integerDigits.count > 1, integerDigits.first == UInt8(ascii: "0") { return .invalid }
        index = integerEnd

        // MARK: Fraction and exponent
        var isFloat = false
        if index < end, token[index] == UInt8(ascii: ".") {
            guard let fractionEnd = digitRun(token, from: index + 1) else { return .invalid }
            index = fractionEnd
            isFloat = true
        }
        if index < end, token[index] == UInt8(ascii: "e") || token[index] == UInt8(ascii: "E") {
            index += 1
            if index < end, token[index] == UInt8(ascii: "+") || token[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard let exponentEnd = digitRun(token, from: index) else { return .invalid }
            index = exponentEnd
            isFloat = true
        }
        guard index == end else { return .invalid }

        if isFloat {
            let cleaned = String(decoding: token.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
            guard let value = Double(cleaned) else { return .invalid }
            return .float(value)
        }
        return integer(integerDigits, negative: negative)
    }

    // MARK: - Helpers

    /// The end of a run of digits starting at `start` in which each `_` sits
    /// between two digits, or nil when there is no such run.
    private static func digitRun(_ token: ArraySlice<UInt8>, from start: Int) -> Int? {
        var index = start
        var previous: UInt8?
        while index < token.endIndex {
            let byte = token[index]
            if byte == UInt8(ascii: "_") {
                guard let previous, isDigit(previous) else { return nil }
            } else if !isDigit(byte) {
                break
            }
            previous = byte
            index += 1
        }
        guard index > start, let previous, isDigit(previous) else { return nil }
        return index
    }

    private static func integer(_ digits: [UInt8], negative: Bool) -> Parsed {
        var value = 0
        for byte in digits {
            let digit = Int(byte - UInt8(ascii: "0"))
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = negative
                ? shifted.subtractingReportingOverflow(digit)
                : shifted.addingReportingOverflow(digit)
            if overflowA || overflowB { return .outOfRange }
            value = next
        }
        return .integer(value)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Whether a token looks like a TOML date or time (`1979-05-27`, `07:32:00`),
    /// which config files do not use.
    static func looksLikeDateTime(_ token: ArraySlice<UInt8>) -> Bool {
        let bytes = Array(token)
        func digits(_ range: Range<Int>) -> Bool {
            range.upperBound <= bytes.count && bytes[range].allSatisfy(isDigit)
        }
        if bytes.count >= 10, digits(0..<4), bytes[4] == UInt8(ascii: "-"), digits(5..<7),
           bytes[7] == UInt8(ascii: "-"), digits(8..<10) {
            return true
        }
        return bytes.count >= 5 && digits(0..<2) && bytes[2] == UInt8(ascii: ":") && digits(3..<5)
    }
}
