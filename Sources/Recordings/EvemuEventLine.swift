#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Engine

// The `E: SECONDS.MICROSECONDS TYPE CODE VALUE` line, the hot path of every
// replay. `fast` reads the common shape (what evemu-record writes) straight
// from the bytes and gives up on anything else; `checked` reads every valid
// shape and says what is wrong with an invalid one. Both give the same event
// for any line `fast` accepts.

enum EvemuEventLine {
    /// The largest number of seconds whose microseconds fit in an Int64.
    static let maximumSeconds: UInt64 = (UInt64(Int64.max) - 999_999) / 1_000_000
    static let maximumSecondsSigned = Int64(maximumSeconds)

    // MARK: Fast path

    /// Reads the `E:` line at `start` (which the caller saw begins with
    /// `E:`). Returns the offset just past the line's newline (or `end`), or
    /// -1 when the line is not in the common shape and must go through
    /// `checked`.
    @inline(__always)
    static func fast(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int,
                     _ event: inout InputEvent) -> Int {
        var index = start &+ 2
        while index < end && (bytes[index] == 0x20 || bytes[index] == 0x09) { index &+= 1 }

        // Seconds: 1 to 12 digits, then a dot.
        var seconds: UInt64 = 0
        let secondsStart = index
        while index < end {
            let digit = bytes[index] &- 0x30
            if digit > 9 { break }
            seconds = seconds &* 10 &+ UInt64(digit)
            index &+= 1
        }
        let secondsDigits = index &- secondsStart
        guard secondsDigits > 0 && secondsDigits <= 12 && index < end && bytes[index] == 0x2e else {
            return -1
        }
        index &+= 1

        // Microseconds: exactly 6 digits, then a blank.
        guard end &- index > 6 else { return -1 }
        var micros: UInt64
        if end &- index >= 8 {
            guard let six = sixDigits(bytes, index) else { return -1 }
            micros = six
        } else {
            micros = 0
            for offset in 0..<6 {
                let digit = bytes[index &+ offset] &- 0x30
                if digit > 9 { return -1 }
                micros = micros &* 10 &+ UInt64(digit)
            }
        }
        index &+= 6

        // Type and code: most often " TTTT CCCC " with decimal digits only
        // (evemu writes %04x), read as two words; anything else digit by digit.
        let afterType: UInt16, afterCode: UInt16
        if end &- index > 10 && bytes[index] == 0x20 && bytes[index &+ 5] == 0x20 && bytes[index &+ 10] == 0x20,
           let type = fourDecimalHexDigits(bytes, index &+ 1), let code = fourDecimalHexDigits(bytes, index &+ 6) {
            (afterType, afterCode) = (type, code)
            index &+= 10
        } else {
            guard let type = fastHex(bytes, &index, end), let code = fastHex(bytes, &index, end) else { return -1 }
            (afterType, afterCode) = (type, code)
        }

        // Value: a blank, an optional sign, 1 to 10 digits.
        guard index < end && (bytes[index] == 0x20 || bytes[index] == 0x09) else { return -1 }
        index &+= 1
        while index < end && (bytes[index] == 0x20 || bytes[index] == 0x09) { index &+= 1 }
        guard index < end else { return -1 }
        var negative = false
        if bytes[index] == 0x2d {
            negative = true
            index &+= 1
        }
        var magnitude: Int64 = 0
        let valueStart = index
        while index < end {
            let digit = bytes[index] &- 0x30
            if digit > 9 { break }
            magnitude = magnitude &* 10 &+ Int64(digit)
            index &+= 1
        }
        let valueDigits = index &- valueStart
        guard valueDigits > 0 && valueDigits <= 10 else { return -1 }
        let value = negative ? -magnitude : magnitude
        guard value >= Int64(Int32.min) && value <= Int64(Int32.max) else { return -1 }

        // End of line, or blanks then the end or a `# comment`.
        var next: Int
        if index == end {
            next = end
        } else if bytes[index] == 0x0a {
            next = index &+ 1
        } else {
            guard ByteFields.isBlank(bytes[index]) else { return -1 }
            index &+= 1
            while index < end && ByteFields.isBlank(bytes[index]) { index &+= 1 }
            if index == end {
                next = end
            } else if bytes[index] == 0x0a {
                next = index &+ 1
            } else if bytes[index] == 0x23 {
                next = lineEnd(bytes, index, end)
                if next < end { next &+= 1 }
            } else {
                return -1
            }
        }

        event = InputEvent(time: Int64(seconds &* 1_000_000 &+ micros),
                           type: afterType, code: afterCode, value: Int32(truncatingIfNeeded: value))
        return next
    }

    /// A blank, optional further blanks, then 1 to 4 hex digits.
    @inline(__always)
    private static func fastHex(_ bytes: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int) -> UInt16? {
        guard index < end && (bytes[index] == 0x20 || bytes[index] == 0x09) else { return nil }
        index &+= 1
        // The common shape: exactly 4 digits (evemu writes %04x), then a blank.
        if end &- index > 4 && (bytes[index &+ 4] == 0x20 || bytes[index &+ 4] == 0x09) {
            let a = nibble(bytes[index]), b = nibble(bytes[index &+ 1])
            let c = nibble(bytes[index &+ 2]), d = nibble(bytes[index &+ 3])
            if (a | b | c | d) < 16 {
                index &+= 4
                return UInt16(a) &<< 12 | UInt16(b) &<< 8 | UInt16(c) &<< 4 | UInt16(d)
            }
        }
        while index < end && (bytes[index] == 0x20 || bytes[index] == 0x09) { index &+= 1 }
        var value: UInt32 = 0
        let digitsStart = index
        while index < end {
            let digit = nibble(bytes[index])
            if digit > 15 { break }
            value = value &<< 4 | UInt32(digit)
            index &+= 1
        }
        let digits = index &- digitsStart
        guard digits > 0 && digits <= 4 else { return nil }
        return UInt16(truncatingIfNeeded: value)
    }

    /// Four hex digits at `index` that are all 0-9, read in one 32-bit
    /// word; nil if any is not a decimal digit (a letter goes the long way).
    @inline(__always)
    private static func fourDecimalHexDigits(_ bytes: UnsafePointer<UInt8>, _ index: Int) -> UInt16? {
        // Little-endian: the first digit is the lowest byte.
        let word = UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt32.self).littleEndian
        guard word & 0xF0F0_F0F0 == 0x3030_3030,
              (word &+ 0x0606_0606) & 0xF0F0_F0F0 == 0x3030_3030 else {
            return nil
        }
        let digits = word & 0x0F0F_0F0F
        let value = (digits & 0xFF) &<< 12 | (digits &>> 8 & 0xFF) &<< 8
            | (digits &>> 16 & 0xFF) &<< 4 | digits &>> 24
        return UInt16(truncatingIfNeeded: value)
    }

    /// The value of a hex digit, or more than 15 for any other byte.
    @inline(__always)
    private static func nibble(_ byte: UInt8) -> UInt8 {
        let digit = byte &- 0x30
        let letter = (byte | 0x20) &- 0x61
        return digit <= 9 ? digit : (letter <= 5 ? letter &+ 10 : 0xff)
    }

    /// Six decimal digits at `index` (8 bytes must be readable there), read
    /// in one 64-bit word; nil if any is not a digit.
    @inline(__always)
    private static func sixDigits(_ bytes: UnsafePointer<UInt8>, _ index: Int) -> UInt64? {
        // Little-endian: the first digit is the lowest byte. Put two '0's in
        // front, making eight digits.
        let word = UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self).littleEndian
        let eight = (word &<< 16) | 0x3030
        // Every byte is 0x30...0x39.
        guard eight & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030,
              (eight &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030 else {
            return nil
        }
        var value = eight &- 0x3030_3030_3030_3030
        value = (value &* 10) &+ (value &>> 8)
        value = (((value & 0x0000_00FF_0000_00FF) &* 0x000F_4240_0000_0064)
            &+ (((value &>> 16) & 0x0000_00FF_0000_00FF) &* 0x0000_2710_0000_0001)) &>> 32
        return value
    }

    /// The offset of the next newline at or after `start`, or `end`.
    @inline(__always)
    static func lineEnd(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        guard start < end else { return end }
        guard let found = memchr(bytes + start, 0x0a, end - start) else { return end }
        return UnsafeRawPointer(found) - UnsafeRawPointer(bytes)
    }

    // MARK: Checked path

    /// Reads `bytes[start..<end]` (one line without its newline, starting
    /// with `E:`) in every valid shape; throws with what is wrong otherwise.
    static func checked(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
                        error: (String) -> RecordingError) throws(RecordingError) -> InputEvent {
        let fields = ByteFields.split(bytes, from: start + 2, to: end)
        guard fields.count == 4 else {
            throw error("expected 4 fields after 'E:' (time type code value), found \(fields.count)")
        }
        let time = try self.time(bytes, fields[0], error: error)

        let type: UInt32
        switch ByteFields.hex(bytes, fields[1], maximum: 0xffff) {
        case .value(let value): type = value
        case .notANumber:
            throw error("the event type \(ByteFields.quoted(bytes, fields[1])) is not a hexadecimal number")
        case .outOfRange:
            throw error("the event type \(ByteFields.quoted(bytes, fields[1])) is larger than ffff")
        }

        let code: UInt32
        switch ByteFields.hex(bytes, fields[2], maximum: 0xffff) {
        case .value(let value): code = value
        case .notANumber:
            throw error("the event code \(ByteFields.quoted(bytes, fields[2])) is not a hexadecimal number")
        case .outOfRange:
            throw error("the event code \(ByteFields.quoted(bytes, fields[2])) is larger than ffff")
        }

        let value: Int32
        switch ByteFields.int32(bytes, fields[3]) {
        case .value(let number): value = number
        case .notANumber:
            throw error("the event value \(ByteFields.quoted(bytes, fields[3])) is not a decimal number")
        case .outOfRange:
            throw error("the event value \(ByteFields.quoted(bytes, fields[3])) does not fit in 32 bits")
        }
        return InputEvent(time: time, type: UInt16(type), code: UInt16(code), value: value)
    }

    /// `SECONDS.FRACTION` in microseconds. The fraction is a decimal
    /// fraction of a second: `0.5` is 500000 µs; digits past the sixth
    /// (below a microsecond) are dropped.
    static func time(_ bytes: UnsafeBufferPointer<UInt8>, _ field: ByteField,
                     error: (String) -> RecordingError) throws(RecordingError) -> Int64 {
        let shape = "is not SECONDS.MICROSECONDS (like 0.000001)"
        var index = field.start
        var seconds: UInt64 = 0
        var tooLarge = false
        while index < field.end, bytes[index] &- 0x30 <= 9 {
            if !tooLarge {
                seconds = seconds * 10 + UInt64(bytes[index] &- 0x30)
                if seconds > maximumSeconds { tooLarge = true }
            }
            index += 1
        }
        guard index > field.start, index < field.end, bytes[index] == 0x2e else {
            throw error("the time \(ByteFields.quoted(bytes, field)) \(shape)")
        }
        index += 1
        guard index < field.end else {
            throw error("the time \(ByteFields.quoted(bytes, field)) \(shape)")
        }
        var micros: UInt64 = 0
        var fractionDigits = 0
        while index < field.end {
            let digit = bytes[index] &- 0x30
            guard digit <= 9 else {
                throw error("the time \(ByteFields.quoted(bytes, field)) \(shape)")
            }
            if fractionDigits < 6 {
                micros = micros * 10 + UInt64(digit)
                fractionDigits += 1
            }
            index += 1
        }
        while fractionDigits < 6 {
            micros *= 10
            fractionDigits += 1
        }
        if tooLarge {
            throw error("the time \(ByteFields.quoted(bytes, field)) is too large")
        }
        return Int64(seconds * 1_000_000 + micros)
    }
}
