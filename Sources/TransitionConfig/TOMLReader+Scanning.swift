// Byte-level scanning and error messages.

extension TOMLReader {
    // MARK: - Scanning

    func peek(_ offset: Int = 0) -> UInt8? {
        let index = pos + offset
        return index < bytes.count ? bytes[index] : nil
    }

    mutating func skipSpaces() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { pos += 1 }
    }

    /// Skips a comment up to (not over) the line end.
    mutating func skipComment() {
        while let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") { pos += 1 }
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
        return true
    }

    func isValueTerminator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
             UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "#"):
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

    // MARK: - Messages

    /// The source text of a value, on one line and at most 40 characters.
    func rawText(_ range: Range<Int>) -> String {
        var text = String(decoding: bytes[range], as: UTF8.self)
        var shortened = false
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

    func error(line: Int? = nil, key: String? = nil, _ message: String) -> ConfigError {
        ConfigError(file: file, line: line ?? self.line, key: key, message: message)
    }
}
