/// Reads the YAML that `libinput record` writes into a tree of `YAMLNode`s:
/// block mappings and sequences by indentation (a sequence may sit at its
/// key's indentation), flow `[…]` and `{…}` over any number of lines, plain,
/// single- and double-quoted scalars, comments, one document.
///
/// What libinput never writes is refused by name rather than guessed at:
/// anchors and aliases (which could also repeat a list without end), tags,
/// block scalars (`|`, `>`), complex keys (`?`), multi-line plain scalars
/// and a second document. The whole file must be UTF-8 of printable
/// characters. Nesting is bounded, so no input can exhaust the stack; the
/// tree has at most one node per byte of input.
struct YAMLReader {
    /// Why a file is not read, at its line.
    struct Failure: Error, Equatable {
        let line: Int
        let message: String
    }

    /// Collections nest at most this deep.
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var position = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    /// Whether content was met: a `---` before it opens the document, one
    /// after it would start a second.
    private var documentStarted = false
    /// The column of the content line the position stands at, or nil at
    /// the end of the file: every block node leaves the position there.
    private var contentColumn: Int?

    /// The document's root node, or nil for a file with no content.
    static func read(_ bytes: [UInt8]) throws(Failure) -> YAMLNode? {
        try checkCharacters(bytes)
        var reader = YAMLReader(bytes: bytes)
        return try reader.document()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3; lineStart = 3 }
    }

    // MARK: Characters

    /// UTF-8 throughout, and nothing YAML calls non-printable (C0 controls
    /// other than tab and line breaks, DEL, C1 controls other than NEL,
    /// surrogates, U+FFFE and U+FFFF).
    private static func checkCharacters(_ bytes: [UInt8]) throws(Failure) {
        var line = 1
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case let .scalarValue(scalar):
                let value = scalar.value
                if value == 0x0A { line += 1; continue }
                let printable = value == 0x09 || value == 0x0D || (0x20...0x7E).contains(value) || value == 0x85
                    || (0xA0...0xD7FF).contains(value) || (0xE000...0xFFFD).contains(value) || value >= 0x10000
                if !printable {
                    throw Failure(line: line, message: "the character U+\(hex(value)) is not allowed in YAML")
                }
            case .emptyInput:
                return
            case .error:
                throw Failure(line: line, message: "the file is not UTF-8")
            }
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    // MARK: Looking at bytes

    private var atEnd: Bool { position >= bytes.count }
    private var column: Int { position - lineStart }

    private func byte(at offset: Int = 0) -> UInt8? {
        let index = position + offset
        return index < bytes.count ? bytes[index] : nil
    }

    private static func isBreak(_ byte: UInt8?) -> Bool { byte == 0x0A || byte == 0x0D }
    private static func isBlank(_ byte: UInt8?) -> Bool { byte == 0x20 || byte == 0x09 }
    /// A space, a tab, a line break or the end of the file.
    private static func isSeparator(_ byte: UInt8?) -> Bool { byte == nil || isBlank(byte) || isBreak(byte) }

    /// A comment starts here: `#` at the start of a line or after a blank.
    private var atComment: Bool {
        byte() == UInt8(ascii: "#") && (position == lineStart || Self.isBlank(bytes[position - 1]))
    }

    /// The end of the line's content: a line break, the end, or a comment.
    private var atLineEnd: Bool { atEnd || Self.isBreak(byte()) || atComment }

    /// `-` followed by a separator: a block sequence item.
    private var atSequenceDash: Bool { byte() == UInt8(ascii: "-") && Self.isSeparator(byte(at: 1)) }

    /// `:` followed by a separator: the end of a key in block context.
    private var atKeyColon: Bool { byte() == UInt8(ascii: ":") && Self.isSeparator(byte(at: 1)) }

    private mutating func skipBlanks() {
        while Self.isBlank(byte()) { position += 1 }
    }

    /// Past one line break (CR LF counts once).
    private mutating func skipBreak() {
        if byte() == 0x0D { position += 1 }
        if byte() == 0x0A { position += 1 }
        line += 1
        lineStart = position
    }

    private func failure(_ message: String, line: Int? = nil) -> Failure {
        Failure(line: line ?? self.line, message: message)
    }

    // MARK: Lines

    /// Moves to the first content of the next line that has any (past
    /// blank and comment-only lines) and records its column in
    /// `contentColumn`; nil at the end of the file.
    private mutating func moveToContentLine() throws(Failure) {
        while true {
            skipBlanks()
            if atComment {
                while !atEnd && !Self.isBreak(byte()) { position += 1 }
            }
            if atEnd { contentColumn = nil; return }
            if Self.isBreak(byte()) { skipBreak(); continue }
            if bytes[lineStart..<position].contains(0x09) {
                throw failure("a tab in the indentation (YAML indents with spaces)")
            }
            if column == 0 && startsDocumentMarker() {
                if !documentStarted && bytes[position] == UInt8(ascii: "-") {
                    documentStarted = true
                    position += 3
                    continue
                }
                throw failure("a second YAML document (---, ...) is not read: a libinput record is one document")
            }
            documentStarted = true
            contentColumn = column
            return
        }
    }

    private func startsDocumentMarker() -> Bool {
        for marker in ["---", "..."] where bytes[position...].starts(with: marker.utf8) {
            return Self.isSeparator(byte(at: 3))
        }
        return false
    }

    /// After a value on its line: only blanks and a comment may follow.
    private mutating func finishLine() throws(Failure) {
        skipBlanks()
        if !atLineEnd {
            if atKeyColon {
                throw failure("a key and ':' after a value on one line (write each key: value on a line of its own)")
            }
            throw failure("unexpected text '\(excerpt())' after the value")
        }
        try moveToContentLine()
    }

    private func excerpt() -> String {
        var end = position
        while end < bytes.count && end - position < 20 && !Self.isBreak(bytes[end]) { end += 1 }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }

    // MARK: Document

    private mutating func document() throws(Failure) -> YAMLNode? {
        try moveToContentLine()
        guard let column = contentColumn else { return nil }
        let root = try blockNode(column: column)
        if contentColumn != nil {
            throw failure("unexpected text '\(excerpt())' less indented than the document's first line")
        }
        return root
    }

    // MARK: Block nodes

    /// The node that starts at the position, in a block at `column`: a
    /// sequence, a mapping, or a value alone on its line.
    private mutating func blockNode(column: Int) throws(Failure) -> YAMLNode {
        try enter()
        defer { depth -= 1 }
        if atSequenceDash { return try blockSequence(column: column) }
        let startLine = line
        let node = try node()
        skipBlanks()
        if atKeyColon {
            guard case let .scalar(key, _) = node.content else {
                throw failure("a list or mapping as a key is not read")
            }
            return try blockMapping(column: column, firstKey: key, line: startLine)
        }
        try finishLine()
        return node
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth {
            throw failure("lists and mappings nest more than \(Self.maximumDepth) deep")
        }
    }

    /// `- item` lines at `column`.
    private mutating func blockSequence(column: Int) throws(Failure) -> YAMLNode {
        let startLine = line
        var items: [YAMLNode] = []
        while true {
            let itemLine = line
            position += 1
            skipBlanks()
            if atLineEnd {
                try moveToContentLine()
                if let next = contentColumn, next > column {
                    items.append(try blockNode(column: next))
                } else {
                    items.append(YAMLNode(content: .scalar("", plain: true), line: itemLine))
                }
            } else {
                items.append(try blockNode(column: self.column))
            }
            guard let next = contentColumn, next == column, atSequenceDash else {
                if let next = contentColumn, next > column {
                    throw failure("unexpected indentation after the list item of line \(itemLine)")
                }
                break
            }
        }
        return YAMLNode(content: .sequence(items), line: startLine)
    }

    /// `key: value` lines at `column`, the first key already read (the
    /// position is at its `:`).
    private mutating func blockMapping(column: Int, firstKey: String, line startLine: Int) throws(Failure)
        -> YAMLNode {
        var pairs: [(key: String, value: YAMLNode)] = []
        var keyLines: [String: Int] = [:]
        var key = firstKey
        var keyLine = startLine
        while true {
            if let first = keyLines[key] {
                throw failure("a mapping has the key '\(key.prefix(80))' more than once (first on line \(first))",
                              line: keyLine)
            }
            keyLines[key] = keyLine
            position += 1
            skipBlanks()
            let value: YAMLNode
            if atLineEnd {
                try moveToContentLine()
                if let next = contentColumn, next > column {
                    value = try blockNode(column: next)
                } else if contentColumn == column && atSequenceDash {
                    try enter()
                    defer { depth -= 1 }
                    value = try blockSequence(column: column)
                } else {
                    value = YAMLNode(content: .scalar("", plain: true), line: keyLine)
                }
            } else {
                if atSequenceDash {
                    throw failure("a list cannot start on its key's line (put '- …' on the lines below)")
                }
                value = try node()
                try finishLine()
            }
            pairs.append((key, value))
            guard let next = contentColumn, next >= column else { break }
            if next > column {
                throw failure("unexpected indentation after the value of '\(key.prefix(80))' (line \(keyLine))")
            }
            if atSequenceDash {
                throw failure("a list item where a key of the mapping at line \(startLine) was expected")
            }
            keyLine = line
            let keyNode = try node()
            guard case let .scalar(text, _) = keyNode.content else {
                throw failure("a list or mapping as a key is not read")
            }
            skipBlanks()
            guard atKeyColon else {
                throw failure("expected 'key:' in the mapping at line \(startLine), found '\(excerpt())'")
            }
            key = text
        }
        return YAMLNode(content: .mapping(pairs), line: startLine)
    }

    // MARK: Values

    /// A flow collection, a quoted scalar or a plain scalar, in block
    /// context or inside a flow collection.
    private mutating func node(inFlow: Bool = false) throws(Failure) -> YAMLNode {
        let startLine = line
        switch byte() {
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            return try flowCollection()
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return YAMLNode(content: .scalar(try quotedScalar(), plain: false), line: startLine)
        default:
            try refuseIndicator()
            if inFlow && byte() == UInt8(ascii: ":") { throw failure("expected a value, found ':'") }
            return YAMLNode(content: .scalar(plainScalar(inFlow: inFlow), plain: true), line: startLine)
        }
    }

    /// What libinput never writes, by name.
    private func refuseIndicator() throws(Failure) {
        guard let first = byte() else { return }
        switch first {
        case UInt8(ascii: "&"), UInt8(ascii: "*"):
            throw failure("YAML anchors and aliases (&name, *name) are not read: libinput record files do not use them")
        case UInt8(ascii: "!"):
            throw failure("YAML tags (!tag) are not read: libinput record files do not use them")
        case UInt8(ascii: "|"), UInt8(ascii: ">"):
            throw failure("YAML block scalars (| or >) are not read: libinput record files do not use them")
        case UInt8(ascii: "?") where Self.isSeparator(byte(at: 1)):
            throw failure("YAML complex keys (? key) are not read: libinput record files do not use them")
        case UInt8(ascii: "%"), UInt8(ascii: "@"), UInt8(ascii: "`"):
            throw failure("a value cannot start with '\(Character(Unicode.Scalar(first)))' in YAML")
        case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"):
            throw failure("unexpected '\(Character(Unicode.Scalar(first)))'")
        default:
            return
        }
    }

    /// Text up to the end of the line, a comment, `: ` and, in flow
    /// context, `,` and brackets; without trailing blanks.
    private mutating func plainScalar(inFlow: Bool) -> String {
        let start = position
        var end = position
        while let current = byte(), !Self.isBreak(current) {
            if current == UInt8(ascii: ":") {
                let next = byte(at: 1)
                if Self.isSeparator(next) { break }
                if inFlow && (next == UInt8(ascii: ",") || next == UInt8(ascii: "]") || next == UInt8(ascii: "}")) {
                    break
                }
            }
            if inFlow && (current == UInt8(ascii: ",") || current == UInt8(ascii: "[") || current == UInt8(ascii: "]")
                          || current == UInt8(ascii: "{") || current == UInt8(ascii: "}")) { break }
            if atComment { break }
            position += 1
            if !Self.isBlank(current) { end = position }
        }
        position = end
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    // MARK: Flow collections

    /// `[a, b, …]` or `{k: v, …}`, over any number of lines.
    private mutating func flowCollection() throws(Failure) -> YAMLNode {
        try enter()
        defer { depth -= 1 }
        let startLine = line
        let isSequence = byte() == UInt8(ascii: "[")
        let close = isSequence ? UInt8(ascii: "]") : UInt8(ascii: "}")
        position += 1
        var items: [YAMLNode] = []
        var pairs: [(key: String, value: YAMLNode)] = []
        var keyLines: [String: Int] = [:]
        while true {
            try skipFlowSpace(opened: startLine, close: close)
            if byte() == close { position += 1; break }
            let itemLine = line
            if isSequence {
                items.append(try node(inFlow: true))
                try skipFlowSpace(opened: startLine, close: close)
                if byte() == UInt8(ascii: ":") {
                    throw failure("a key: value pair inside [ ] is not read (write {key: value})")
                }
            } else {
                let key = try node(inFlow: true)
                guard case let .scalar(text, _) = key.content else {
                    throw failure("a list or mapping as a key is not read")
                }
                try skipFlowSpace(opened: startLine, close: close)
                guard byte() == UInt8(ascii: ":") else {
                    throw failure("expected ':' after the key '\(text.prefix(80))' in { }")
                }
                position += 1
                try skipFlowSpace(opened: startLine, close: close)
                let value = byte() == UInt8(ascii: ",") || byte() == close
                    ? YAMLNode(content: .scalar("", plain: true), line: line) : try node(inFlow: true)
                if let first = keyLines[text] {
                    throw failure("a mapping has the key '\(text.prefix(80))' more than once (first on line \(first))",
                                  line: itemLine)
                }
                keyLines[text] = itemLine
                pairs.append((text, value))
                try skipFlowSpace(opened: startLine, close: close)
            }
            if byte() == UInt8(ascii: ",") { position += 1; continue }
            if byte() == close { position += 1; break }
            let what = isSequence ? "',' or ']'" : "',' or '}'"
            throw failure("expected \(what) in the \(isSequence ? "list" : "mapping") opened on line \(startLine), "
                          + "found '\(excerpt())'")
        }
        return YAMLNode(content: isSequence ? .sequence(items) : .mapping(pairs), line: startLine)
    }

    /// Blanks, line breaks and comments between the parts of a flow collection.
    private mutating func skipFlowSpace(opened: Int, close: UInt8) throws(Failure) {
        while true {
            skipBlanks()
            if atComment {
                while !atEnd && !Self.isBreak(byte()) { position += 1 }
            }
            if atEnd {
                throw failure("the '\(close == UInt8(ascii: "]") ? "[" : "{")' opened on line \(opened) is not closed")
            }
            guard Self.isBreak(byte()) else { return }
            skipBreak()
        }
    }

    // MARK: Quoted scalars

    /// `"…"` with YAML's escapes, or `'…'` with `''` for a quote; a line
    /// break inside folds to a space.
    private mutating func quotedScalar() throws(Failure) -> String {
        let quote = bytes[position]
        let startLine = line
        position += 1
        var text: [UInt8] = []
        while true {
            guard let current = byte() else {
                throw failure("the string opened on line \(startLine) is not closed", line: startLine)
            }
            if current == quote {
                if quote == UInt8(ascii: "'") && byte(at: 1) == quote {
                    text.append(quote)
                    position += 2
                    continue
                }
                position += 1
                return String(decoding: text, as: UTF8.self)
            }
            if Self.isBreak(current) {
                while text.last.map({ Self.isBlank($0) }) == true { text.removeLast() }
                skipBreak()
                skipBlanks()
                text.append(0x20)
                continue
            }
            if current == UInt8(ascii: "\\") && quote == UInt8(ascii: "\"") {
                try escape(into: &text)
                continue
            }
            text.append(current)
            position += 1
        }
    }

    /// The escapes of one letter after a backslash, and what they stand for.
    private static let simpleEscapes: [UInt8: UInt32] = [
        UInt8(ascii: "0"): 0, UInt8(ascii: "a"): 7, UInt8(ascii: "b"): 8, UInt8(ascii: "t"): 9, 0x09: 9,
        UInt8(ascii: "n"): 10, UInt8(ascii: "v"): 11, UInt8(ascii: "f"): 12, UInt8(ascii: "r"): 13,
        UInt8(ascii: "e"): 27, 0x20: 0x20, UInt8(ascii: "\""): 0x22, UInt8(ascii: "/"): 0x2F,
        UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "N"): 0x85, UInt8(ascii: "_"): 0xA0,
        UInt8(ascii: "L"): 0x2028, UInt8(ascii: "P"): 0x2029,
    ]

    /// One backslash escape of a double-quoted scalar.
    private mutating func escape(into text: inout [UInt8]) throws(Failure) {
        position += 1
        guard let letter = byte() else { return }
        position += 1
        let digits: Int
        switch letter {
        case UInt8(ascii: "x"): digits = 2
        case UInt8(ascii: "u"): digits = 4
        case UInt8(ascii: "U"): digits = 8
        case 0x0A, 0x0D:
            position -= 1
            skipBreak()
            skipBlanks()
            return
        default:
            guard let value = Self.simpleEscapes[letter] else {
                throw failure("unknown escape '\\\(Character(Unicode.Scalar(letter)))' in a quoted string")
            }
            append(Unicode.Scalar(value)!, to: &text)
            return
        }
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let digit = byte().flatMap({ UInt32(String(Unicode.Scalar($0)), radix: 16) }) else {
                throw failure("'\\\(Character(Unicode.Scalar(letter)))' needs \(digits) hexadecimal digits")
            }
            value = value * 16 + digit
            position += 1
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw failure("the escape names U+\(Self.hex(value)), which is not a character")
        }
        append(scalar, to: &text)
    }

    private func append(_ scalar: Unicode.Scalar, to text: inout [UInt8]) {
        text.append(contentsOf: Array(String(Character(scalar)).utf8))
    }
}
