// Reading strings: basic and literal, single- and multi-line.

extension TOMLReader {
    // MARK: - Basic strings

    /// `"…"`: escapes, no line end, no control character but tab.
    mutating func readBasicString(key: KeyText?) throws(ConfigError) -> String {
        pos += 1
        var out: [UInt8] = []
        while true {
            guard let byte = peek() else {
                throw error(key: key?(), "unterminated string: missing the closing '\"'")
            }
            switch byte {
            case UInt8(ascii: "\""):
                pos += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error(key: key?(), "unterminated string: missing the closing '\"' before the end of the line")
            case UInt8(ascii: "\\"):
                try readEscape(into: &out, key: key)
            default:
                try rejectControl(byte, key: key, in: "a string")
                out.append(byte)
                pos += 1
            }
        }
    }

    /// `"""…"""` (escapes, and a backslash at the end of a line joins it to
    /// the next non-blank text) or `'''…'''` (as written): line ends kept,
    /// the one right after the opening quotes dropped, up to two quotes
    /// before the closing three.
    mutating func readMultiLineString(quote: UInt8, key: KeyText?) throws(ConfigError) -> String {
        let escapes = quote == UInt8(ascii: "\"")
        let delimiter = escapes ? "\"\"\"" : "'''"
        pos += 3
        _ = try consumeNewline()
        var out: [UInt8] = []
        while true {
            guard let byte = peek() else {
                throw error(key: key?(), "unterminated string: missing the closing \(delimiter)")
            }
            switch byte {
            case quote:
                if let end = try closingQuotes(quote, key: key) {
                    out.append(contentsOf: repeatElement(quote, count: end - pos - 3))
                    pos = end
                    return String(decoding: out, as: UTF8.self)
                }
                out.append(byte)
                pos += 1
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                _ = try consumeNewline()
                out.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "\\") where escapes:
                if try skipLineEndingBackslash() { continue }
                try readEscape(into: &out, key: key)
            default:
                try rejectControl(byte, key: key, in: "a string")
                out.append(byte)
                pos += 1
            }
        }
    }

    /// A backslash, then only spaces up to the line end: it, the line end
    /// and every space and line end after go (true). False when the
    /// backslash starts an escape.
    private mutating func skipLineEndingBackslash() throws(ConfigError) -> Bool {
        var index = pos + 1
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\n") || bytes[index] == UInt8(ascii: "\r") else {
            return false
        }
        pos = index
        while true {
            skipSpaces()
            let consumed = try consumeNewline()
            if !consumed { return true }
        }
    }

    /// Escapes of a basic string: `\b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX`.
    private mutating func readEscape(into out: inout [UInt8], key: KeyText?) throws(ConfigError) {
        pos += 1
        guard let code = peek() else {
            throw error(key: key?(), "unterminated string: missing the closing '\"'")
        }
        pos += 1
        switch code {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(code)
        case UInt8(ascii: "u"): try readUnicodeEscape(digits: 4, into: &out, key: key)
        case UInt8(ascii: "U"): try readUnicodeEscape(digits: 8, into: &out, key: key)
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
            pos -= 1
            throw error(key: key?(), "unterminated string: missing the closing '\"' before the end of the line")
        default:
            pos -= 2
            throw error(key: key?(), "invalid escape '\\\(found(at: pos + 1, quoted: false))' in a string (TOML has \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)")
        }
    }

    private mutating func readUnicodeEscape(digits: Int, into out: inout [UInt8], key: KeyText?) throws(ConfigError) {
        let letter = digits == 4 ? "u" : "U"
        let escapeStart = pos - 2
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let byte = peek(), let digit = hexValue(byte) else {
                throw error(key: key?(), "invalid escape '\\\(letter)': expected \(digits) hexadecimal digits, found \(found())")
            }
            value = value &* 16 &+ digit
            pos += 1
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw error(line: line, column: column(at: escapeStart), key: key?(),
                        "escape '\\\(letter)\(String(bytes: bytes[(escapeStart + 2)..<pos]))' is not a Unicode scalar value (a surrogate, or past U+10FFFF)")
        }
        UTF8.encode(scalar) { out.append($0) }
    }

    // MARK: - Literal strings

    /// `'…'`: as written, no line end, no control character but tab.
    mutating func readLiteralString(key: KeyText?) throws(ConfigError) -> String {
        pos += 1
        let start = pos
        while true {
            guard let byte = peek() else {
                throw error(key: key?(), "unterminated string: missing the closing \"'\"")
            }
            switch byte {
            case UInt8(ascii: "'"):
                let text = String(decoding: bytes[start..<pos], as: UTF8.self)
                pos += 1
                return text
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error(key: key?(), "unterminated string: missing the closing \"'\" before the end of the line")
            default:
                try rejectControl(byte, key: key, in: "a string")
                pos += 1
            }
        }
    }

    // MARK: - Helpers

    /// At a run of `quote`s: when it closes the string (three to five: up
    /// to two belong to the content), the index after it; nil for one or
    /// two (content). Six or more cannot be written (three in a row never
    /// belong to the content).
    private mutating func closingQuotes(_ quote: UInt8, key: KeyText?) throws(ConfigError) -> Int? {
        var end = pos
        while end < bytes.count, bytes[end] == quote { end += 1 }
        let run = end - pos
        guard run >= 3 else { return nil }
        guard run <= 5 else {
            throw error(line: line, column: column(at: pos + 5), key: key?(),
                        "\(run) quotes in a row: a multi-line string ends at the third, and holds at most two before it")
        }
        return end
    }

    mutating func rejectControl(_ byte: UInt8, key: KeyText?, in what: String) throws(ConfigError) {
        if (byte < 0x20 && byte != 0x09) || byte == 0x7F {
            throw error(key: key?(), "control character \(found()) in \(what); write it as an escape")
        }
    }
}

private extension String {
    init(bytes: ArraySlice<UInt8>) { self.init(decoding: bytes, as: UTF8.self) }
}
