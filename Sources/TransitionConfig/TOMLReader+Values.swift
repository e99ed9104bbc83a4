// Reading values: numbers, booleans, dates and times, arrays, inline tables.

extension TOMLReader {
    // MARK: - Values

    /// The value at the reader's position, for the key `key` (its full path,
    /// for messages and for the path of an inline table).
    mutating func readValue(key: KeyText) throws(ConfigError) -> TOMLNode {
        let valueLine = line
        let valueColumn = column()
        let start = pos
        let value: TOMLValue
        switch peek() {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") {
                value = .string(try readMultiLineString(quote: UInt8(ascii: "\""), key: key))
            } else {
                value = .string(try readBasicString(key: key))
            }
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") {
                value = .string(try readMultiLineString(quote: UInt8(ascii: "'"), key: key))
            } else {
                value = .string(try readLiteralString(key: key))
            }
        case UInt8(ascii: "["):
            value = .array(try nested(key: key) { (reader: inout TOMLReader) throws(ConfigError) in
                try reader.readArray(key: key)
            })
        case UInt8(ascii: "{"):
            value = .table(try nested(key: key) { (reader: inout TOMLReader) throws(ConfigError) in
                try reader.readInlineTable(key: key, line: valueLine)
            })
        default:
            value = try readBareValue(key: key)
        }
        return TOMLNode(value: value, line: valueLine, column: valueColumn, raw: rawText(start..<pos))
    }

    /// Runs `read` one level deeper, refusing to go past `maximumDepth`.
    private mutating func nested<T>(key: KeyText, _ read: (inout TOMLReader) throws(ConfigError) -> T) throws(ConfigError) -> T {
        guard depth < Self.maximumDepth else {
            throw error(key: key(), "arrays and inline tables nest at most \(Self.maximumDepth) deep")
        }
        depth += 1
        defer { depth -= 1 }
        return try read(&self)
    }

    /// Booleans, numbers, `inf`, `nan`, dates and times: a token up to a
    /// space, `,`, `]`, `}`, `#` or the line end (a date-time's space
    /// between date and time included).
    mutating func readBareValue(key: KeyText) throws(ConfigError) -> TOMLValue {
        let start = pos
        switch TOMLDateTime.read(bytes, at: start) {
        case .value(let value, let end):
            pos = end
            if let byte = peek(), !isValueTerminator(byte) {
                throw error(key: key(), "invalid date or time \(rawText(start..<tokenEnd(from: start))) (\(found()) after it)")
            }
            return .dateTime(value)
        case .invalid:
            let end = tokenEnd(from: start, allowingTimeAfterDate: true)
            throw error(key: key(), "invalid date or time \(rawText(start..<end)) (RFC 3339: YYYY-MM-DD, HH:MM:SS, a real day and time)")
        case .notADateTime:
            break
        }
        pos = tokenEnd(from: start)
        let token = bytes[start..<pos]
        guard !token.isEmpty else {
            pos = start
            throw error(key: key(), "expected a value, found \(found())")
        }
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
            throw error(line: line, column: column(at: start), key: key(), "integer \(text) does not fit in 64 bits")
        case .invalid:
            pos = start
            let first = token[token.startIndex]
            if text.lowercased() == "true" || text.lowercased() == "false" {
                throw error(key: key(), "booleans are written in lower case: \(text.lowercased()) (got \(text))")
            }
            if (first >= UInt8(ascii: "a") && first <= UInt8(ascii: "z"))
                || (first >= UInt8(ascii: "A") && first <= UInt8(ascii: "Z")) {
                throw error(key: key(), "expected a value, found \(text) (strings must be quoted: \(TOMLString.quoted(text)))")
            }
            if first == UInt8(ascii: "0"), token.count > 1, token.allSatisfy(TOMLNumber.isDigit) {
                throw error(key: key(), "invalid number \(text): an integer cannot start with 0 (write a file mode as a string: \(TOMLString.quoted(text)))")
            }
            if TOMLNumber.isDigit(first) || first == UInt8(ascii: "+") || first == UInt8(ascii: "-")
                || first == UInt8(ascii: ".") {
                throw error(key: key(), "invalid number \(text)")
            }
            throw error(key: key(), "invalid value \(text)")
        }
    }

    /// The end of a bare token starting at `start`.
    private func tokenEnd(from start: Int, allowingTimeAfterDate: Bool = false) -> Int {
        var end = start
        while end < bytes.count, !isValueTerminator(bytes[end]) { end += 1 }
        if allowingTimeAfterDate, end < bytes.count, bytes[end] == UInt8(ascii: " "), end - start == 10,
           end + 1 < bytes.count, TOMLNumber.isDigit(bytes[end + 1]) {
            end += 1
            while end < bytes.count, !isValueTerminator(bytes[end]) { end += 1 }
        }
        return end
    }

    // MARK: - Arrays

    /// `[ value, value, … ]`: any values, over any lines, comments between,
    /// one trailing comma allowed.
    private mutating func readArray(key: KeyText) throws(ConfigError) -> [TOMLNode] {
        let openLine = line
        let openColumn = column()
        pos += 1
        var elements: [TOMLNode] = []
        while true {
            try skipArraySpace(key: key, openLine: openLine, openColumn: openColumn)
            if peek() == UInt8(ascii: "]") {
                pos += 1
                return elements
            }
            if peek() == UInt8(ascii: ",") {
                throw error(key: key(), "expected a value in the array, found ','")
            }
            let number = elements.count + 1
            elements.append(try readValue(key: key.element(number)))
            try skipArraySpace(key: key, openLine: openLine, openColumn: openColumn)
            switch peek() {
            case UInt8(ascii: ","):
                pos += 1
            case UInt8(ascii: "]"):
                pos += 1
                return elements
            default:
                throw error(key: key(), "expected ',' or ']' in the array, found \(found())")
            }
        }
    }

    /// Spaces, comments and line ends inside an array.
    private mutating func skipArraySpace(key: KeyText, openLine: Int, openColumn: Int) throws(ConfigError) {
        while true {
            skipSpaces()
            if peek() == UInt8(ascii: "#") { try skipComment() }
            if peek() == nil {
                throw error(key: key(), "unterminated array: missing the closing ']' of the '[' on line \(openLine), column \(openColumn)")
            }
            let consumed = try consumeNewline()
            if !consumed { return }
        }
    }

    // MARK: - Inline tables

    /// `{ key = value, … }` on one line (values inside may span lines),
    /// dotted keys allowed, no trailing comma. Complete as written: nothing
    /// may add to it later.
    private mutating func readInlineTable(key: KeyText, line openLine: Int) throws(ConfigError) -> TOMLTable {
        let table = TOMLTable(line: openLine, origin: .dotted, path: key)
        pos += 1
        skipSpaces()
        if peek() == UInt8(ascii: "}") {
            pos += 1
            table.origin = .inline
            return table
        }
        while true {
            skipSpaces()
            guard let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else {
                throw error(key: key(), "an inline table ends on the line it starts ('}' expected, found \(found()))")
            }
            if byte == UInt8(ascii: "}") || byte == UInt8(ascii: ",") {
                throw error(key: key(), "expected a key in the inline table, found \(found())")
            }
            // Keys inside go into the table as into a section of its own:
            // its dotted sub-tables are still open until the '}'.
            try readKeyValue(into: table)
            skipSpaces()
            switch peek() {
            case UInt8(ascii: ","):
                pos += 1
            case UInt8(ascii: "}"):
                pos += 1
                table.seal()
                return table
            default:
                throw error(key: key(), "expected ',' or '}' in the inline table, found \(found())")
            }
        }
    }
}
