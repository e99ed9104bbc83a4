// Reading values: strings, numbers, booleans and arrays.

extension TOMLReader {
    // MARK: - Values

    mutating func readValue(key: String, inArray: Bool) throws(ConfigError) -> TOMLNode {
        let valueLine = line
        let start = pos
        let value: TOMLValue
        switch peek() {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") {
                throw error(key: key, "multi-line strings (\"\"\") are not supported")
            }
            value = .string(try readBasicString(key: key))
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") {
                throw error(key: key, "multi-line strings (''') are not supported")
            }
            value = .string(try readLiteralString(key: key))
        case UInt8(ascii: "["):
            if inArray { throw error(key: key, "nested arrays are not supported") }
            value = .array(try readArray(key: key))
        case UInt8(ascii: "{"):
            throw error(key: key, "inline tables ({ ... }) are not supported; use a [table] header")
        default:
            value = try readBareValue(key: key)
        }
        return TOMLNode(value: value, line: valueLine, raw: rawText(start..<pos))
    }

    /// Booleans, numbers, `inf` and `nan`: a token up to a space, `,`, `]`,
    /// `#` or the line end.
    mutating func readBareValue(key: String) throws(ConfigError) -> TOMLValue {
        let start = pos
        while let byte = peek(), !isValueTerminator(byte) { pos += 1 }
        let token = bytes[start..<pos]
        guard !token.isEmpty else { throw error(key: key, "expected a value, found \(found())") }
        let text = String(decoding: token, as: UTF8.self)
        switch text {
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        switch TOMLNumber.parse(token) {
        case .integer(let value): return .integer(value)
        case .float(let value): return .float(value)
        case .outOfRange:
            throw error(key: key, "integer \(text) does not fit in 64 bits")
        case .invalid:
            if TOMLNumber.looksLikeDateTime(token) {
                throw error(key: key, "dates and times are not supported (got \(text))")
            }
            let first = token[token.startIndex]
            if (first >= UInt8(ascii: "a") && first <= UInt8(ascii: "z"))
                || (first >= UInt8(ascii: "A") && first <= UInt8(ascii: "Z")) {
                throw error(key: key, "expected a value, found \(text) (strings must be quoted: \(TOMLString.quoted(text)))")
            }
            if first == UInt8(ascii: "0"), token.count > 1, token.allSatisfy(TOMLNumber.isDigit) {
                throw error(key: key, "invalid number \(text): an integer cannot start with 0 (write a file mode as a string: \(TOMLString.quoted(text)))")
            }
            if TOMLNumber.isDigit(first) || first == UInt8(ascii: "+") || first == UInt8(ascii: "-")
                || first == UInt8(ascii: ".") {
                throw error(key: key, "invalid number \(text)")
            }
            throw error(key: key, "invalid value \(text)")
        }
    }

    mutating func readArray(key: String) throws(ConfigError) -> [TOMLNode] {
        let openLine = line
        pos += 1
        var elements: [TOMLNode] = []
        while true {
            try skipArraySpace(key: key, openLine: openLine)
            if peek() == UInt8(ascii: "]") {
                pos += 1
                return elements
            }
            elements.append(try readValue(key: key, inArray: true))
            try skipArraySpace(key: key, openLine: openLine)
            switch peek() {
            case UInt8(ascii: ","):
                pos += 1
            case UInt8(ascii: "]"):
                pos += 1
                return elements
            default:
                throw error(key: key, "expected ',' or ']' in the array, found \(found())")
            }
        }
    }

    /// Spaces, comments and line ends inside an array.
    mutating func skipArraySpace(key: String, openLine: Int) throws(ConfigError) {
        while true {
            skipSpaces()
            if peek() == UInt8(ascii: "#") { skipComment() }
            if peek() == nil {
                throw error(line: openLine, key: key, "unterminated array: missing the closing ']'")
            }
            let consumed = try consumeNewline()
            if !consumed { return }
        }
    }

    // MARK: - Strings

    mutating func readBasicString(key: String?) throws(ConfigError) -> String {
        let openLine = line
        pos += 1
        var out: [UInt8] = []
        while true {
            guard let byte = peek() else {
                throw error(line: openLine, key: key, "unterminated string: missing the closing '\"'")
            }
            switch byte {
            case UInt8(ascii: "\""):
                pos += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error(key: key, "unterminated string: missing the closing '\"' before the end of the line")
            case UInt8(ascii: "\\"):
                try readEscape(into: &out, key: key, openLine: openLine)
            default:
                try rejectControl(byte, key: key)
                out.append(byte)
                pos += 1
            }
        }
    }

    mutating func readEscape(into out: inout [UInt8], key: String?, openLine: Int) throws(ConfigError) {
        pos += 1
        guard let code = peek() else {
            throw error(line: openLine, key: key, "unterminated string: missing the closing '\"'")
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
            throw error(key: key, "unterminated string: missing the closing '\"' before the end of the line")
        default:
            pos -= 1
            throw error(key: key, "invalid escape '\\\(found(quoted: false))' in a string")
        }
    }

    mutating func readUnicodeEscape(digits: Int, into out: inout [UInt8], key: String?) throws(ConfigError) {
        let letter = digits == 4 ? "u" : "U"
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let byte = peek(), let digit = hexValue(byte) else {
                throw error(key: key, "invalid escape '\\\(letter)': expected \(digits) hexadecimal digits")
            }
            value = value &* 16 &+ digit
            pos += 1
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw error(key: key, "escape '\\\(letter)\(String(value, radix: 16, uppercase: true))' is not a Unicode scalar value")
        }
        UTF8.encode(scalar) { out.append($0) }
    }

    mutating func readLiteralString(key: String?) throws(ConfigError) -> String {
        pos += 1
        let start = pos
        while true {
            guard let byte = peek() else {
                throw error(key: key, "unterminated string: missing the closing \"'\"")
            }
            switch byte {
            case UInt8(ascii: "'"):
                let text = String(decoding: bytes[start..<pos], as: UTF8.self)
                pos += 1
                return text
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error(key: key, "unterminated string: missing the closing \"'\" before the end of the line")
            default:
                try rejectControl(byte, key: key)
                pos += 1
            }
        }
    }

    func rejectControl(_ byte: UInt8, key: String?) throws(ConfigError) {
        if (byte < 0x20 && byte != 0x09) || byte == 0x7F {
            throw error(key: key, "control character \(found()) in a string; write it as an escape")
        }
    }
}
