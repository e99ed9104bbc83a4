// Byte-level scanning, columns and error messages.

extension TOMLReader {
    // MARK: - Scanning

    func peek(_ offset: Int = 0) -> UInt8? {
        let index = pos + offset
        return index < bytes.count ? bytes[index] : nil
    }

    mutating func skipSpaces() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { pos += 1 }
    }

    /// Skips a comment up to (not over) the line end; a control character
    /// other than tab in it is an error (TOML 1.0, "Comment").
    mutating func skipComment() throws(ConfigError) {
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r") {
                if peek(1) == UInt8(ascii: "\n") { return }
                throw error("a carriage return must be followed by a line feed")
            }
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F {
                throw error("control character \(found()) in a comment")
            }
            pos += 1
        }
    }

    /// Consumes LF or CRLF; false when the next byte is not a line end.
    mutating func consumeNewline() throws(ConfigError) -> Bool {
        switch peek() {
        case UInt8(ascii: "\n"):
            pos += 1
        case UInt8(ascii: "\r"):
            guard peek(1) == UInt8(ascii: "\n") else {
                throw error("a carriage return must be followed by a line feed")
            }
            pos += 2
        default:
            return false
        }
        line += 1
        lineStart = pos
        columnMark = (pos, 1)
        return true
    }

    func isValueTerminator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
             UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "#"):
            return true
        default:
            return false
        }
    }

    func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    // MARK: - Columns

    /// The 1-based column, in Unicode scalars, of the reader's position.
    mutating func column() -> Int { column(at: pos) }

    /// The column of `index` on the current line. Counted on from the last
    /// point asked for when `index` is past it, so a line is scanned about
    /// once however many values it holds.
    mutating func column(at index: Int) -> Int {
        let index = max(lineStart, min(index, bytes.count))
        if index < columnMark.offset { columnMark = (lineStart, 1) }
        var column = columnMark.column
        for k in columnMark.offset..<index where bytes[k] & 0xC0 != 0x80 { column += 1 }
        columnMark = (index, column)
        return column
    }

    /// Every byte must be UTF-8 (TOML 1.0: "A TOML file must be a valid
    /// UTF-8 encoded Unicode document"); an error at the first that is not.
    mutating func checkUTF8() throws(ConfigError) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" {
                    line += 1
                    lineStart = offset + 1
                }
                offset += UTF8.width(scalar)
            case .emptyInput:
                line = 1
                lineStart = 0
                return
            case .error:
                pos = offset
                columnMark = (lineStart, 1)
                throw error("the file is not valid UTF-8 (byte 0x\(String(bytes[offset], radix: 16, uppercase: true)))")
            }
        }
    }

    // MARK: - Messages

    /// The source text of a value, on one line and at most 40 characters.
    /// Only the first bytes of the range are looked at (a value may be a
    /// whole nested array: its text is not copied for each level).
    func rawText(_ range: Range<Int>) -> String {
        let head = range.lowerBound..<min(range.upperBound, range.lowerBound + 41 * 4)
        var text = String(decoding: bytes[head], as: UTF8.self)
        var shortened = head.upperBound < range.upperBound
        if let lineEnd = text.firstIndex(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            text = String(text[..<lineEnd])
            shortened = true
        }
        if text.count > 40 {
            text = String(text.prefix(40))
            shortened = true
        }
        return shortened ? text + " ..." : text
    }

    /// What is at `index`, for "found ..." messages: `'x'`, `U+0007`,
    /// `the end of the line`, `the end of the file`.
    func found(at index: Int? = nil, quoted: Bool = true) -> String {
        let index = index ?? pos
        guard index < bytes.count else { return "the end of the file" }
        let byte = bytes[index]
        if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { return "the end of the line" }
        if byte < 0x20 || byte == 0x7F {
            let hex = String(byte, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        let character = String(decoding: bytes[index..<min(index + 4, bytes.count)], as: UTF8.self)
            .first.map(String.init) ?? "?"
        return quoted ? "'\(character)'" : character
    }

    /// An error at the reader's position, or at `line` and `column` when
    /// given (on the current line, or on an earlier one: then without the
    /// source line), with the source line and a caret under the column.
    mutating func error(line: Int? = nil, column: Int? = nil, key: String? = nil, _ message: String) -> ConfigError {
        let errorLine = line ?? self.line
        let errorColumn = column ?? self.column()
        var error = ConfigError(file: file, line: errorLine, key: key, message: message)
        error.column = errorColumn
        if errorLine == self.line { error.excerpt = currentLineText() }
        return error
    }

    /// The current line, without its line end, at most 200 bytes.
    private func currentLineText() -> String {
        var end = lineStart
        while end < bytes.count, end - lineStart < 200, bytes[end] != UInt8(ascii: "\n"), bytes[end] != UInt8(ascii: "\r") {
            end += 1
        }
        return String(decoding: bytes[lineStart..<end], as: UTF8.self)
    }
}
