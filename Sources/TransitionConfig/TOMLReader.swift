/// Reads TOML 1.0.0 (toml.io/en/v1.0.0) into a tree of `TOMLTable`s whose
/// every value knows its line and column.
///
/// All of the language: comments; LF and CRLF line ends; bare, quoted and
/// dotted keys; basic and literal strings, single- and multi-line, with
/// every escape; decimal, hexadecimal, octal and binary integers (64-bit);
/// floats with `inf` and `nan`; booleans; offset and local date-times,
/// local dates and times; arrays of anything; inline tables; `[table]` and
/// `[[array.of.tables]]` headers, with the rules on defining a table or a
/// key once. Any document that is not TOML 1.0 is a `ConfigError` at the
/// line and column where a reader going from the top first knows it, with
/// the source line and a caret under the column. No input makes it trap;
/// it reads in one pass (time linear in the input) and nests arrays and
/// inline tables at most `maximumDepth` deep, keys at most
/// `maximumKeyParts` parts long.
///
/// This file reads lines, keys and table headers; TOMLReader+Values.swift
/// reads values, TOMLReader+Strings.swift strings, and
/// TOMLReader+Scanning.swift holds the byte-level helpers and messages.
/// A key's path for messages, its text made only when one is needed (`key()`).
typealias KeyText = TOMLPath

struct TOMLReader {
    let bytes: [UInt8]
    let file: String
    var pos = 0
    var line = 1
    /// Where the current line starts, and a recent point of it whose column
    /// is known (columns are counted from there: one pass over each line).
    var lineStart = 0
    var columnMark = (offset: 0, column: 1)
    /// How deep values are nested now (arrays, inline tables).
    var depth = 0
    private let root: TOMLTable
    private var current: TOMLTable

    /// Arrays and inline tables nest at most this deep.
    static let maximumDepth = 128
    /// A key (`a.b.c`) or a table header has at most this many parts.
    static let maximumKeyParts = 128

    private init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
        root = TOMLTable(line: 1, origin: .root, path: TOMLPath())
        current = root
    }

    /// The root table of `text`, or the first error in it.
    static func read(_ text: String, file: String) throws(ConfigError) -> TOMLTable {
        var reader = TOMLReader(bytes: Array(text.utf8), file: file)
        try reader.readDocument()
        return reader.root
    }

    /// The root table of a document's bytes (checked to be UTF-8 first), or
    /// the first error in it.
    static func read(bytes: [UInt8], file: String) throws(ConfigError) -> TOMLTable {
        var reader = TOMLReader(bytes: bytes, file: file)
        try reader.checkUTF8()
        try reader.readDocument()
        return reader.root
    }

    /// Nothing but UTF-8 in `bytes`, or an error at the first byte that is
    /// not (with its line, column and caret).
    static func checkUTF8(_ bytes: [UInt8], file: String) throws(ConfigError) {
        var reader = TOMLReader(bytes: bytes, file: file)
        try reader.checkUTF8()
    }

    // MARK: - Lines

    private mutating func readDocument() throws(ConfigError) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            pos = 3
            lineStart = 3
            columnMark = (3, 1)
        }
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
    mutating func finishLine(after key: KeyText?) throws(ConfigError) {
        skipSpaces()
        if peek() == UInt8(ascii: "#") { try skipComment() }
        if peek() == nil { return }
        if try consumeNewline() { return }
        let what = key == nil ? "the table header" : "the value"
        throw error(key: key?(), "expected the end of the line after \(what), found \(found())")
    }

    private mutating func readKeyValue() throws(ConfigError) {
        let path = try readKeyValue(into: current)
        try finishLine(after: path)
    }

    /// `key = value` (the key dotted or not) into `table`: a dotted key
    /// makes, or adds to, the tables it names on the way. Returns the key's
    /// path, made when asked for.
    @discardableResult
    mutating func readKeyValue(into table: TOMLTable) throws(ConfigError) -> KeyText {
        let keyLine = line
        let keyColumn = column()
        let keys = try readKeyPath()
        let last = keys[keys.count - 1]
        // The table's path, not the table: a path must not hold a table.
        let fullPath = table.pathMaker.appending(keys)
        skipSpaces()
        guard peek() == UInt8(ascii: "=") else {
            throw error(key: fullPath(), "expected '=' after the key, found \(found())")
        }
        pos += 1
        skipSpaces()
        // The tables of a dotted key, then the value.
        var target = table
        for key in keys.dropLast() {
            target = try dottedTable(key, in: target, line: keyLine, column: keyColumn, fullPath: fullPath)
        }
        if let first = target[last] {
            throw error(line: keyLine, column: keyColumn, key: fullPath(),
                        "duplicate key (first defined on line \(first.line))")
        }
        let node = try readValue(key: fullPath)
        target.insert(last, node)
        return fullPath
    }

    /// The table `key` of `table` for a dotted key: made if missing;
    /// entered if a dotted key made it. Any other table was defined
    /// elsewhere and is complete (TOML 1.0, "Keys" and "Table").
    private mutating func dottedTable(_ key: String, in table: TOMLTable, line keyLine: Int, column keyColumn: Int,
                                      fullPath: KeyText) throws(ConfigError) -> TOMLTable {
        guard let node = table[key] else {
            let child = TOMLTable(line: keyLine, origin: .dotted, path: table.pathMaker.appending([key]))
            table.insert(key, TOMLNode(value: .table(child), line: keyLine, column: keyColumn, raw: TOMLKey.display(key)))
            return child
        }
        if case .table(let child) = node.value {
            switch child.origin {
            case .dotted:
                return child
            case .implicit:
                // Only implied by a header under it (`[a.b.c]`, then `[a]`,
                // `b.d = 1`): a dotted key may define it (toml-lang/toml#771).
                child.origin = .dotted
                return child
            case .header, .inline, .root, .arrayElement:
                break
            }
        }
        let what: String
        switch node.value {
        case .table(let child):
            switch child.origin {
            case .inline: what = "an inline table (line \(node.line)), complete as written"
            case .header, .implicit, .root, .arrayElement, .dotted: what = "a table defined on line \(node.line)"
            }
        case .tableArray: what = "an array of tables (line \(node.line))"
        case .string, .integer, .float, .boolean, .dateTime, .array: what = "\(node.value.typeName) (line \(node.line))"
        }
        throw error(line: keyLine, column: keyColumn, key: fullPath(),
                    "\(table.childPath(key)) is already \(what), so a dotted key cannot add to it")
    }

    // MARK: - Keys

    /// `a`, `a.b`, `"a b".'c'`: the parts of a key.
    mutating func readKeyPath() throws(ConfigError) -> [String] {
        var keys = [try readKey()]
        while true {
            skipSpaces()
            guard peek() == UInt8(ascii: ".") else { return keys }
            pos += 1
            skipSpaces()
            guard keys.count < Self.maximumKeyParts else {
                throw error("a key has at most \(Self.maximumKeyParts) parts")
            }
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
        let headerColumn = column()
        pos += 1
        let isArray = peek() == UInt8(ascii: "[")
        if isArray { pos += 1 }
        skipSpaces()
        let keys = try readKeyPath()
        skipSpaces()
        let closing = isArray ? "]]" : "]"
        guard peek() == UInt8(ascii: "]"), !isArray || peek(1) == UInt8(ascii: "]") else {
            if isArray && peek() == UInt8(ascii: "]") { pos += 1 }
            throw error("expected '\(closing)' to close the table header, found \(found())")
        }
        pos += closing.utf8.count
        try openTable(keys, isArray: isArray, line: headerLine, column: headerColumn)
        try finishLine(after: nil)
    }

    /// Makes the table a header names the current one: `[a.b]` defines `b`
    /// in `a`; `[[a.b]]` appends a table to the array `b` in the latest `a`.
    private mutating func openTable(_ keys: [String], isArray: Bool, line headerLine: Int,
                                    column headerColumn: Int) throws(ConfigError) {
        let header = keys.map(TOMLKey.display).joined(separator: ".")
        let shown = isArray ? "[[\(header)]]" : "[\(header)]"
        var table = root
        for key in keys.dropLast() {
            let path = table.pathMaker.appending([key])
            guard let node = table[key] else {
                let child = TOMLTable(line: headerLine, origin: .implicit, path: path)
                table.insert(key, TOMLNode(value: .table(child), line: headerLine, column: headerColumn, raw: shown))
                table = child
                continue
            }
            switch node.value {
            case .table(let child) where child.origin != .inline:
                table = child
            case .tableArray(let array):
                table = array.tables[array.tables.count - 1]
            case .table:
                throw error(line: headerLine, column: headerColumn, key: path(),
                            "is an inline table (line \(node.line)), complete as written, so it cannot hold the table \(shown)")
            case .string, .integer, .float, .boolean, .dateTime, .array:
                throw error(line: headerLine, column: headerColumn, key: path(),
                            "is already \(node.value.typeName) (line \(node.line)), so it cannot hold the table \(shown)")
            }
        }

        let last = keys[keys.count - 1]
        let pathOfLast = table.pathMaker.appending([last])
        guard let node = table[last] else {
            if isArray {
                let element = TOMLTable(line: headerLine, origin: .arrayElement, path: pathOfLast.element(1))
                table.insert(last, TOMLNode(value: .tableArray(TOMLTableArray(first: element)),
                                            line: headerLine, column: headerColumn, raw: shown))
                current = element
            } else {
                let element = TOMLTable(line: headerLine, origin: .header, path: pathOfLast)
                table.insert(last, TOMLNode(value: .table(element), line: headerLine, column: headerColumn, raw: shown))
                current = element
            }
            return
        }
        let path = pathOfLast()
        switch node.value {
        case .tableArray(let array) where isArray:
            let number = array.tables.count + 1
            let element = TOMLTable(line: headerLine, origin: .arrayElement, path: pathOfLast.element(number))
            array.append(element)
            current = element
        case .table(let existing) where !isArray && existing.origin == .implicit:
            existing.origin = .header
            existing.line = headerLine
            table.setLine(headerLine, of: last)
            current = existing
        case .table(let existing):
            let how: String
            switch existing.origin {
            case .dotted: how = "is already a table made by a dotted key (line \(node.line))"
            case .inline: how = "is already an inline table (line \(node.line))"
            case .implicit: how = "is already a table, made on line \(node.line) by a header under it (a [[\(header).…]] belongs after the [[\(header)]] it is part of)"
            case .header, .root, .arrayElement: how = "is already a table (line \(node.line))"
            }
            throw error(line: headerLine, column: headerColumn, key: path, isArray
                        ? "\(how), so it cannot also be \(shown)"
                        : existing.origin == .header ? "the table \(shown) is already defined on line \(node.line)" : "\(how), so \(shown) cannot define it again")
        case .tableArray:
            throw error(line: headerLine, column: headerColumn, key: path,
                        "is already an array of tables ([[\(header)]] on line \(node.line)), so it cannot also be \(shown)")
        case .array:
            throw error(line: headerLine, column: headerColumn, key: path,
                        "is already an array (line \(node.line)); \(shown) cannot add to an array written as a value")
        case .string, .integer, .float, .boolean, .dateTime:
            throw error(line: headerLine, column: headerColumn, key: path,
                        "is already \(node.value.typeName) (line \(node.line)), so it cannot also be a table")
        }
    }
}
