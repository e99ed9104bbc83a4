// MARK: - Entry points

extension JSONValue {
    /// How deep arrays and objects may nest (`[[1]]` is depth 2).
    public static let maximumDepth = 64

    /// Reads one strict RFC 8259 JSON document from `bytes`: any value,
    /// surrounded by optional whitespace (space, tab, CR, LF; so a line's
    /// `\n` may stay on). No comments, trailing commas, NaN/Infinity, single
    /// quotes, leading zeros or byte-order mark. A duplicate key in an object
    /// is an error. Invalid UTF-8 anywhere is `invalidUTF8`. Never traps on
    /// any input; linear time.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        guard let base = bytes.baseAddress, bytes.count > 0 else { throw .empty }
        if let offset = UTF8Validation.firstInvalidOffset(bytes) { throw .invalidUTF8(offset: offset) }
        var parser = JSONParser(base: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        return try parser.document()
    }

    /// Reads one strict JSON document from `bytes` (see the buffer form).
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBytes { buffer in Result { () throws(JSONParseError) in try parse(buffer) } }.get()
    }

    /// Reads one strict JSON document from `bytes` (see the buffer form).
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBytes { buffer in Result { () throws(JSONParseError) in try parse(buffer) } }.get()
    }

    /// Reads one strict JSON document from the UTF-8 of `text`.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

// MARK: - Parser

/// A recursive-descent reader over bytes already checked to be valid UTF-8.
/// Recursion is bounded by `JSONValue.maximumDepth`.
struct JSONParser {
    private let p: UnsafePointer<UInt8>
    private let end: Int
    private var i = 0
    private var depth = 0
    /// Reused for strings with escapes.
    private var scratch: [UInt8] = []

    init(base: UnsafePointer<UInt8>, count: Int) {
        p = base
        end = count
    }

    mutating func document() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        if i == end { throw .empty }
        let value = try value()
        skipWhitespace()
        if i != end { throw syntax("\(found()) after the JSON value") }
        return value
    }

    // MARK: Values

    private mutating func value() throws(JSONParseError) -> JSONValue {
        guard i < end else { throw syntax("unexpected end of input, expected a value") }
        switch p[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw syntax("\(found()), expected a value")
        }
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > JSONValue.maximumDepth { throw .tooDeep(offset: i, limit: JSONValue.maximumDepth) }
        i += 1
    }

    private mutating func object() throws(JSONParseError) -> JSONValue {
        try enter()
        var members: [JSONObject.Member] = []
        var seen: Set<String>? = nil   // built once the object is large enough to need it
        skipWhitespace()
        if i < end, p[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(JSONObject())
        }
        while true {
            guard i < end else { throw syntax("unexpected end of input, expected a string key") }
            guard p[i] == UInt8(ascii: "\"") else {
                if p[i] == UInt8(ascii: "}"), !members.isEmpty { throw syntax("trailing comma before '}'") }
                throw syntax("\(found()), expected a string key")
            }
            let keyOffset = i
            let key = try string()
            if seen == nil, members.count >= 16 { seen = Set(members.map(\.key)) }
            if seen != nil {
                if !seen!.insert(key).inserted { throw .duplicateKey(offset: keyOffset, key: key) }
            } else if members.contains(where: { $0.key == key }) {
                throw .duplicateKey(offset: keyOffset, key: key)
            }
            skipWhitespace()
            guard i < end else { throw syntax("unexpected end of input, expected ':'") }
            guard p[i] == UInt8(ascii: ":") else { throw syntax("\(found()), expected ':' after an object key") }
            i += 1
            skipWhitespace()
            members.append(JSONObject.Member(key: key, value: try value()))
            skipWhitespace()
            guard i < end else { throw syntax("unexpected end of input, expected ',' or '}'") }
            switch p[i] {
            case UInt8(ascii: ","):
                i += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                i += 1
                depth -= 1
                return .object(JSONObject(uniqueMembers: members))
            default:
                throw syntax("\(found()), expected ',' or '}' in an object")
            }
        }
    }

    private mutating func array() throws(JSONParseError) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        skipWhitespace()
        if i < end, p[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            if i < end, p[i] == UInt8(ascii: "]"), !elements.isEmpty { throw syntax("trailing comma before ']'") }
            elements.append(try value())
            skipWhitespace()
            guard i < end else { throw syntax("unexpected end of input, expected ',' or ']'") }
            switch p[i] {
            case UInt8(ascii: ","):
                i += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                i += 1
                depth -= 1
                return .array(elements)
            default:
                throw syntax("\(found()), expected ',' or ']' in an array")
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        var k = 0
        while k < n {
            guard i + k < end, p[i + k] == w[k] else {
                throw syntax("invalid literal, expected \(word)")
            }
            k += 1
        }
        i += n
    }

    // MARK: Strings

    /// A string literal starting at the opening quote. The bytes are valid
    /// UTF-8 already; only escapes and control characters need checking.
    private mutating func string() throws(JSONParseError) -> String {
        i += 1
        let start = i
        while i < end {
            let b = p[i]
            if b == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(start: p + start, count: i - start), as: UTF8.self)
                i += 1
                return text
            }
            if b == UInt8(ascii: "\\") { return try escapedString(from: start) }
            if b < 0x20 { throw controlCharacter(b) }
            i += 1
        }
        throw .syntax(offset: end, message: "unexpected end of input in a string (missing '\"')")
    }

    /// The rest of a string that has escapes, collected in `scratch`.
    private mutating func escapedString(from start: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: p + start, count: i - start))
        while i < end {
            let b = p[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if b < 0x20 { throw controlCharacter(b) }
            if b != UInt8(ascii: "\\") {
                scratch.append(b)
                i += 1
                continue
            }
            guard i + 1 < end else { break }
            let escape = p[i + 1]
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                appendUTF8(try unicodeEscape())
                continue
            default:
                throw syntax("invalid escape '\\\(Self.printable(escape))' in a string")
            }
            i += 2
        }
        throw .syntax(offset: end, message: "unexpected end of input in a string (missing '\"')")
    }

    /// `\uXXXX`, or a `\uD8xx\uDCxx` surrogate pair, at `i`; advances past it.
    private mutating func unicodeEscape() throws(JSONParseError) -> UInt32 {
        let first = try hex4(at: i + 2)
        switch first {
        case 0xD800...0xDBFF:
            guard i + 7 < end, p[i + 6] == UInt8(ascii: "\\"), p[i + 7] == UInt8(ascii: "u") else {
                throw syntax("lone surrogate \\u\(Self.hex(first)) (a high surrogate must be followed by a \\u low surrogate)")
            }
            let second = try hex4(at: i + 8)
            guard (0xDC00...0xDFFF).contains(second) else {
                throw syntax("lone surrogate \\u\(Self.hex(first)) (followed by \\u\(Self.hex(second)), not a low surrogate)")
            }
            i += 12
            return 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        case 0xDC00...0xDFFF:
            throw syntax("lone surrogate \\u\(Self.hex(first)) (a low surrogate without a high one)")
        default:
            i += 6
            return first
        }
    }

    /// Four hex digits at `offset`.
    private func hex4(at offset: Int) throws(JSONParseError) -> UInt32 {
        guard offset + 4 <= end else {
            throw .syntax(offset: i, message: "unexpected end of input in a \\u escape")
        }
        var value: UInt32 = 0
        for k in 0..<4 {
            let b = p[offset + k]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw .syntax(offset: i, message: "invalid \\u escape: 4 hex digits expected")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    private func controlCharacter(_ b: UInt8) -> JSONParseError {
        syntax("control character U+00\(Self.hex(UInt32(b), width: 2)) in a string (escape it)")
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. Up to 19
    /// significant digits with a small exponent are converted exactly
    /// (Clinger's fast path); anything else goes through the standard
    /// library's correctly rounded conversion.
    private mutating func number() throws(JSONParseError) -> Double {
        let start = i
        var negative = false
        if p[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0          // significant digits accumulated in `mantissa`
        var exact = true        // false once digits are dropped from `mantissa`
        var exponent = 0        // decimal exponent of `mantissa`

        guard i < end, isDigit(p[i]) else { throw syntax("\(found()), expected a digit") }
        if p[i] == UInt8(ascii: "0") {
            i += 1
            if i < end, isDigit(p[i]) { throw syntax("leading zero in a number") }
        } else {
            while i < end, isDigit(p[i]) {
                accumulate(p[i], into: &mantissa, digits: &digits, exact: &exact, dropped: &exponent)
                i += 1
            }
        }
        if i < end, p[i] == UInt8(ascii: ".") {
            i += 1
            guard i < end, isDigit(p[i]) else { throw syntax("\(found()), expected a digit after '.'") }
            while i < end, isDigit(p[i]) {
                var ignored = 0
                accumulate(p[i], into: &mantissa, digits: &digits, exact: &exact, dropped: &ignored)
                if ignored == 0 { exponent -= 1 }
                i += 1
            }
        }
        if i < end, p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E") {
            i += 1
            var exponentNegative = false
            if i < end, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") {
                exponentNegative = p[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < end, isDigit(p[i]) else { throw syntax("\(found()), expected a digit in the exponent") }
            var explicit = 0
            while i < end, isDigit(p[i]) {
                if explicit < 100_000 { explicit = explicit * 10 + Int(p[i] - UInt8(ascii: "0")) }
                i += 1
            }
            exponent += exponentNegative ? -explicit : explicit
        }

        if exact, mantissa <= 1 << 53, (-22...22).contains(exponent) {
            var value = Double(mantissa)
            if exponent < 0 { value /= Self.powersOfTen[-exponent] } else { value *= Self.powersOfTen[exponent] }
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(start: p + start, count: i - start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw .numberOutOfRange(offset: start) }
        return value
    }

    /// Adds a digit to `mantissa` while it has room for 19 digits; a digit
    /// that does not fit makes the value inexact (and, before the point,
    /// raises the exponent by one).
    @inline(__always)
    private func accumulate(_ b: UInt8, into mantissa: inout UInt64, digits: inout Int, exact: inout Bool,
                            dropped: inout Int) {
        let d = UInt64(b - UInt8(ascii: "0"))
        if mantissa == 0 && d == 0 { return }   // leading zeros are not significant
        if digits < 19 {
            mantissa = mantissa * 10 + d
            digits += 1
        } else {
            exact = false
            dropped += 1
        }
    }

    private static let powersOfTen: [Double] = (0...22).map { k in
        var x = 1.0
        for _ in 0..<k { x *= 10 }
        return x
    }

    // MARK: Scanning helpers

    @inline(__always)
    private func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    @inline(__always)
    private mutating func skipWhitespace() {
        while i < end {
            switch p[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    private func syntax(_ message: String) -> JSONParseError {
        .syntax(offset: i, message: message)
    }

    /// What is at `i`, for a message: "unexpected 'x'", "unexpected end of
    /// input", "unexpected character U+00E9".
    private func found() -> String {
        guard i < end else { return "unexpected end of input" }
        let b = p[i]
        if b >= 0x80 {
            var iterator = UnsafeBufferPointer(start: p + i, count: min(4, end - i)).makeIterator()
            var decoder = UTF8()
            if case .scalarValue(let scalar) = decoder.decode(&iterator) {
                return "unexpected character U+\(Self.hex(scalar.value))"
            }
        }
        return "unexpected '\(Self.printable(b))'"
    }

    /// An ASCII byte as itself, or as `\u{XX}` when it is not printable.
    private static func printable(_ b: UInt8) -> String {
        (0x21...0x7E).contains(b) ? String(UnicodeScalar(b)) : "\\u{\(hex(UInt32(b), width: 2))}"
    }

    /// Upper-case hex, zero-padded.
    private static func hex(_ value: UInt32, width: Int = 4) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
