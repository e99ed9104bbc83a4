/// Reading TOML integers and floats from a token's bytes.
///
/// Integers: optional sign, decimal digits, `_` only between digits, no
/// leading zero; or `0x`, `0o`, `0b` and digits of that base (no sign).
/// Floats: an integer part, then `.digits` and/or an exponent
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
        if token.count >= 2, token[index] == UInt8(ascii: "0") {
            switch token[index + 1] {
            case UInt8(ascii: "x"): return prefixed(token.dropFirst(2), radix: 16)
            case UInt8(ascii: "o"): return prefixed(token.dropFirst(2), radix: 8)
            case UInt8(ascii: "b"): return prefixed(token.dropFirst(2), radix: 2)
            default: break
            }
        }
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

    /// Digits of `radix` (`_` only between two), as a non-negative 64-bit integer.
    private static func prefixed(_ digits: ArraySlice<UInt8>, radix: Int) -> Parsed {
        var value = 0
        var previousWasDigit = false
        var any = false
        for byte in digits {
            if byte == UInt8(ascii: "_") {
                guard previousWasDigit else { return .invalid }
                previousWasDigit = false
                continue
            }
            let digit: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = Int(byte - UInt8(ascii: "A")) + 10
            default: return .invalid
            }
            guard digit < radix else { return .invalid }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: radix)
            let (next, overflowB) = shifted.addingReportingOverflow(digit)
            if overflowA || overflowB {
                // Keep checking the digits: a malformed token is invalid first.
                value = Int.max
                any = true
                previousWasDigit = true
                if !digits.allSatisfy({ $0 == UInt8(ascii: "_") || isDigit(of: $0, radix: radix) }) { return .invalid }
                return digits.last == UInt8(ascii: "_") ? .invalid : .outOfRange
            }
            value = next
            previousWasDigit = true
            any = true
        }
        guard any, previousWasDigit else { return .invalid }
        return .integer(value)
    }

    private static func isDigit(of byte: UInt8, radix: Int) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0")) < radix
        case UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): return radix == 16
        default: return false
        }
    }

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
}
