/// Reads the TOML that config files need into a tree of `TOMLTable`s whose
/// every value knows its line.
///
/// Supported: comments, blank lines, LF and CRLF line ends, `key = value`
/// with bare or quoted keys; basic strings with escapes, literal strings,
/// integers, floats (`inf`/`nan` included, for the schema to reject),
/// booleans, arrays of scalars over one or more lines; `[table]` and
/// `[[array.of.tables]]` headers. Inline tables, multi-line strings, nested
/// arrays, dotted keys on the left of `=`, and dates are rejected with a
/// message saying so. Any other malformed input is a `ConfigError` naming
/// the line; no input makes the reader trap.
///
/// This file reads lines, keys and table headers; TOMLReader+Values.swift
/// reads values and TOMLReader+Scanning.swift holds the byte-level helpers.
struct TOMLReader {
    let bytes: [UInt8]
    let file: String
    var pos = 0
    var line = 1
    private let root: TOMLTable
    private var current: TOMLTable

    private init(text: String, file: String) {
        bytes = Array(text.utf8)
        self.file = file
        root = TOMLTable(line: 1, path: "", isDefined: true)
        current = root
    }

    /// The root table of `text`, or the first syntax error in it.
    static func read(_ text: String, file: String) throws(ConfigError) -> TOMLTable {
        var reader = TOMLReader(text: text, file: file)
        try reader.readDocument()
        return reader.root
    }

    // MARK: - Lines

    private mutating func readDocument() throws(ConfigError) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { pos = 3 }
        while true {
            skipSpaces()
            guard let byte = peek() else { return }
            switch byte {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                try finishLine(after: nil)
            case UInt8(ascii: "["):
                try readHeader()
            default:
                try readKeyValue()
            }
        }
    }

    /// Skips spaces and a comment, then consumes the line end (or accepts the
    /// end of the file). `after` names the key whose value came before.
    private mutating func finishLine(after key: String?) throws(ConfigError) {
        skipSpaces()
        if peek() == UInt8(ascii: "#") { skipComment() }
        if peek() == nil { return }
        if try consumeNewline() { return }
        let what = key == nil ? "the table header" : "the value"
        throw error(key: key, "expected the end of the line after \(what), found \(found())")
    }

    private mutating func readKeyValue() throws(ConfigError) {
        let keyLine = line
        let keys = try readKeyPath()
        let key = keys[0]
        let path = current.childPath(key)
        if keys.count > 1 {
            let dotted = keys.map(TOMLKey.display).joined(separator: ".")
            throw error(key: current.path.isEmpty ? dotted : current.path + "." + dotted,
                        "dotted keys are not supported; put the key under a [\(keys.dropLast().map(TOMLKey.display).joined(separator: "."))] header")
        }
        skipSpaces()
        guard peek() == UInt8(ascii: "=") else {
            throw error(key: path, "expected '=' after the key, found \(found())")
        }
        pos += 1
        skipSpaces()
        let node = try readValue(key: path, inArray: false)
        if let first = current[key] {
            throw error(line: keyLine, key: path, "duplicate key (first defined on line \(first.line))")
        }
        current.insert(key, node)
        try finishLine(after: path)
    }

    // MARK: - Keys

    private mutating func readKeyPath() throws(ConfigError) -> [String] {
        var keys = [try readKey()]
        while true {
            skipSpaces()
            guard peek() == UInt8(ascii: ".") else { return keys }
            pos += 1
            skipSpaces()
            keys.append(try readKey())
        }
    }

    private mutating func readKey() throws(ConfigError) -> String {
        switch peek() {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") {
                throw error("a key cannot be a multi-line string")
            }
            return try readBasicString(key: nil)
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") {
                throw error("a key cannot be a multi-line string")
            }
            return try readLiteralString(key: nil)
        default:
            let start = pos
            while let byte = peek(), TOMLKey.isBareKeyByte(byte) { pos += 1 }
            guard pos > start else { throw error("expected a key, found \(found())") }
            return String(decoding: bytes[start..<pos], as: UTF8.self)
        }
    }

    // MARK: - Table headers

    private mutating func readHeader() throws(ConfigError) {
        let headerLine = line
        pos += 1
        let isArray = peek() == UInt8(ascii: "[")
        if isArray { pos += 1 }
        skipSpaces()
        let keys = try readKeyPath()
        skipSpaces()
        let closing = isArray ? "]]" : "]"
        guard peek() == UInt8(ascii: "]"), !isArray || peek(1) == UInt8(ascii: "]") else {
            throw error("expected '\(closing)' to close the table header, found \(found(at: isArray && peek() == UInt8(ascii: "]") ? pos + 1 : pos))")
        }
        pos += closing.utf8.count
        try openTable(keys, isArray: isArray, line: headerLine)
        try finishLine(after: nil)
    }

    /// Makes the table a header names the current one: `[a.b]` defines `b`
    /// in `a`; `[[a.b]]` appends a table to the array `b` in the latest `a`.
    private mutating func openTable(_ keys: [String], isArray: Bool, line headerLine: Int) throws(ConfigError) {
        let header = keys.map(TOMLKey.display).joined(separator: ".")
        var table = root
        for key in keys.dropLast() {
            let path = table.childPath(key)
            if let node = table[key] {
                switch node.value {
                case .table(let child):
                    table = child
                case .tableArray(let array):
                    table = array.tables[array.tables.count - 1]
                default:
                    throw error(line: headerLine, key: path,
                                "is already a value (line \(node.line)), so it cannot hold the table [\(header)]")
                }
            } else if isArray {
                let parent = keys.dropLast().map(TOMLKey.display).joined(separator: ".")
                throw error(line: headerLine, key: header,
                            "[[\(header)]] comes before any [[\(parent)]] it could belong to")
            } else {
                let child = TOMLTable(line: headerLine, path: path, isDefined: false)
                table.insert(key, TOMLNode(value: .table(child), line: headerLine, raw: "[\(path)]"))
                table = child
            }
        }

        let last = keys[keys.count - 1]
        let path = table.childPath(last)
        guard let node = table[last] else {
            if isArray {
                let element = TOMLTable(line: headerLine, path: path + "[1]", isDefined: true)
                table.insert(last, TOMLNode(value: .tableArray(TOMLTableArray(first: element)),
                                            line: headerLine, raw: "[[\(header)]]"))
                current = element
            } else {
                let element = TOMLTable(line: headerLine, path: path, isDefined: true)
                table.insert(last, TOMLNode(value: .table(element), line: headerLine, raw: "[\(header)]"))
                current = element
            }
            return
        }
        switch node.value {
        case .tableArray(let array) where isArray:
            let element = TOMLTable(line: headerLine, path: path + "[\(array.tables.count + 1)]", isDefined: true)
            array.append(element)
            current = element
        case .table(let existing) where !isArray && !existing.isDefined:
            existing.isDefined = true
            existing.line = headerLine
            table.setLine(headerLine, of: last)
            current = existing
        case .table:
            throw error(line: headerLine, key: path, isArray
                        ? "is already a table (line \(node.line)), so it cannot also be [[\(header)]]"
                        : "the table [\(header)] is already defined on line \(node.line)")
        case .tableArray:
            throw error(line: headerLine, key: path,
                        "is already an array of tables ([[\(header)]] on line \(node.line)), so it cannot also be [\(header)]")
        default:
            throw error(line: headerLine, key: path,
                        "is already a value (line \(node.line)), so it cannot also be a table")
        }
    }
}
