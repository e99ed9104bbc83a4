// Small helpers for the line-oriented evemu format, working on bytes: split a
// line into whitespace-separated fields, read hexadecimal and decimal numbers
// with overflow checks, and quote a field for an error message.

/// A field of a line: a range of byte offsets into the file's bytes.
struct ByteField {
    var start: Int
    var end: Int
    var count: Int { end - start }
}

/// The outcome of reading a number from a field.
enum NumberResult<Value> {
    case value(Value)
    case notANumber
    case outOfRange
}

enum ByteFields {
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let carriageReturn: UInt8 = 0x0d
    static let newline: UInt8 = 0x0a
    static let hash: UInt8 = 0x23

    /// Space, tab and carriage return separate fields (a CR before the
    /// newline is a CRLF line ending).
    @inline(__always)
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == space || byte == tab || byte == carriageReturn
    }

    /// The fields of `bytes[start..<end]`, split on blanks. A field that
    /// starts with `#` starts a trailing comment, which ends the fields when
    /// `commentsAllowed`.
    static func split(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
                      commentsAllowed: Bool = true) -> [ByteField] {
        var fields: [ByteField] = []
        var index = start
        while index < end {
            while index < end && isBlank(bytes[index]) { index += 1 }
            if index == end { break }
            if commentsAllowed && bytes[index] == hash { break }
            let fieldStart = index
            while index < end && !isBlank(bytes[index]) { index += 1 }
            fields.append(ByteField(start: fieldStart, end: index))
        }
        return fields
    }

    /// The value of one hexadecimal digit, or nil.
    @inline(__always)
    static func hexDigit(_ byte: UInt8) -> UInt32? {
        let digit = byte &- 0x30
        if digit <= 9 { return UInt32(digit) }
        let letter = (byte | 0x20) &- 0x61
        if letter <= 5 { return UInt32(letter) + 10 }
        return nil
    }

    /// A hexadecimal number (no prefix, any number of leading zeros) that
    /// must not exceed `maximum`.
    static func hex(_ bytes: UnsafeBufferPointer<UInt8>, _ field: ByteField,
                    maximum: UInt32) -> NumberResult<UInt32> {
        var value: UInt32 = 0
        var tooLarge = false
        for index in field.start..<field.end {
            guard let digit = hexDigit(bytes[index]) else { return .notANumber }
            if !tooLarge {
                value = value << 4 | digit
                if value > maximum { tooLarge = true }
            }
        }
        if field.count == 0 { return .notANumber }
        return tooLarge ? .outOfRange : .value(value)
    }

    /// A decimal integer with an optional sign that must fit in 32 bits.
    static func int32(_ bytes: UnsafeBufferPointer<UInt8>, _ field: ByteField) -> NumberResult<Int32> {
        switch int64(bytes, field, minimum: Int64(Int32.min), maximum: Int64(Int32.max)) {
        case .value(let value): return .value(Int32(value))
        case .notANumber: return .notANumber
        case .outOfRange: return .outOfRange
        }
    }

    /// A decimal integer with an optional sign, in `minimum...maximum`.
    static func int64(_ bytes: UnsafeBufferPointer<UInt8>, _ field: ByteField,
                      minimum: Int64, maximum: Int64) -> NumberResult<Int64> {
        var index = field.start
        var negative = false
        if index < field.end && (bytes[index] == 0x2d || bytes[index] == 0x2b) {
            negative = bytes[index] == 0x2d
            index += 1
        }
        guard index < field.end else { return .notANumber }
        // Accumulate the magnitude; past 2^62 it is out of range for sure,
        // which is known before a digit more could overflow 64 bits.
        var magnitude: UInt64 = 0
        var tooLarge = false
        while index < field.end {
            let digit = bytes[index] &- 0x30
            guard digit <= 9 else { return .notANumber }
            if !tooLarge {
                if magnitude > (1 << 62) / 10 {
                    tooLarge = true
                } else {
                    magnitude = magnitude * 10 + UInt64(digit)
                }
            }
            index += 1
        }
        if tooLarge { return .outOfRange }
        let value = negative ? -Int64(magnitude) : Int64(magnitude)
        guard value >= minimum && value <= maximum else { return .outOfRange }
        return .value(value)
    }

    /// The text of `bytes[start..<end]` for a message: invalid UTF-8 is
    /// replaced, control characters become `?`, and long text is cut.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
                     limit: Int = 40) -> String {
        let cut = min(end, start + limit * 4)
        var text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<cut]), as: UTF8.self)
        text = String(text.unicodeScalars.map { scalar -> Character in
            scalar.value < 0x20 || scalar.value == 0x7f ? "?" : Character(scalar)
        })
        if text.count > limit || cut < end {
            text = String(text.prefix(limit)) + "…"
        }
        return text
    }

    /// `text` of a field, in single quotes.
    static func quoted(_ bytes: UnsafeBufferPointer<UInt8>, _ field: ByteField) -> String {
        "'" + text(bytes, from: field.start, to: field.end) + "'"
    }
}
