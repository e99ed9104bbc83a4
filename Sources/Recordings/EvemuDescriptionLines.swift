import Engine

// The description lines of an evemu file: `# EVEMU x.y`, `N:`, `I:`, `P:`,
// `B:`, `A:` and the old `L:`/`S:` lines.

extension EvemuFileParser {
    // MARK: Version and name

    /// `# EVEMU 1.3`: sets the format version. Other comments are ignored.
    mutating func readVersion(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, line: Int) {
        let fields = ByteFields.split(bytes, from: start, to: end, commentsAllowed: false)
        guard fields.count == 2, ByteFields.text(bytes, from: fields[0].start, to: fields[0].end) == "EVEMU" else {
            return
        }
        let number = fields[1]
        var index = number.start
        var major = 0
        var minor = 0
        var majorDigits = 0
        var minorDigits = 0
        while index < number.end, bytes[index] &- 0x30 <= 9, majorDigits < 6 {
            major = major * 10 + Int(bytes[index] &- 0x30)
            majorDigits += 1
            index += 1
        }
        guard majorDigits > 0, index < number.end, bytes[index] == 0x2e else { return }
        index += 1
        while index < number.end, bytes[index] &- 0x30 <= 9, minorDigits < 6 {
            minor = minor * 10 + Int(bytes[index] &- 0x30)
            minorDigits += 1
            index += 1
        }
        guard minorDigits > 0, index == number.end else { return }
        version = (major, minor)
        versionLine = line
    }

    /// `N: name`: the rest of the line, any bytes (invalid UTF-8 is replaced).
    mutating func readName(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
                           line: Int) throws(RecordingError) {
        var first = start
        while first < end && (bytes[first] == ByteFields.space || bytes[first] == ByteFields.tab) { first += 1 }
        var last = end
        while last > first && bytes[last - 1] == ByteFields.carriageReturn { last -= 1 }
        guard last > first else {
            throw error(line, "the device name after 'N:' is empty")
        }
        name = String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<last]), as: UTF8.self)
        nameLine = line
    }

    // MARK: Ids and bit masks

    /// `I: bus vendor product version`, four hexadecimal numbers.
    mutating func readID(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
                         line: Int) throws(RecordingError) {
        let fields = ByteFields.split(bytes, from: start, to: end)
        guard fields.count == 4 else {
            throw error(line, "expected 4 hexadecimal fields after 'I:' (bus vendor product version), "
                        + "found \(fields.count)")
        }
        var numbers: [UInt16] = []
        for (field, what) in zip(fields, ["bus", "vendor", "product", "version"]) {
            switch ByteFields.hex(bytes, field, maximum: 0xffff) {
            case .value(let value): numbers.append(UInt16(value))
            case .notANumber:
                throw error(line, "the \(what) id \(ByteFields.quoted(bytes, field)) is not a hexadecimal number")
            case .outOfRange:
                throw error(line, "the \(what) id \(ByteFields.quoted(bytes, field)) is larger than ffff")
            }
        }
        id = (numbers[0], numbers[1], numbers[2], numbers[3])
        idLine = line
    }

    /// Eight hexadecimal bytes of a bit mask.
    func maskBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ fields: ArraySlice<ByteField>, what: String,
                   line: Int) throws(RecordingError) -> [UInt8] {
        var mask: [UInt8] = []
        for field in fields {
            switch ByteFields.hex(bytes, field, maximum: 0xff) {
            case .value(let value): mask.append(UInt8(value))
            case .notANumber, .outOfRange:
                throw error(line, "the \(what) \(ByteFields.quoted(bytes, field)) is not a hexadecimal byte (00 to ff)")
            }
        }
        return mask
    }

    /// `P: 8 bytes`: input properties; each further line continues the mask.
    mutating func readProperties(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
                                 line: Int) throws(RecordingError) {
        let fields = ByteFields.split(bytes, from: start, to: end)
        guard fields.count == 8 else {
            throw error(line, "expected 8 hexadecimal bytes after 'P:', found \(fields.count)")
        }
        let mask = try maskBytes(bytes, fields[...], what: "property byte", line: line)
        for bit in 0..<64 where mask[bit / 8] & (1 << (bit % 8)) != 0 {
            properties.insert(propertyBits + bit)
        }
        propertyBits += 64
    }

    /// `B: type 8 bytes`: the codes of one event type; each further line for
    /// the same type continues its mask. The line for type 00 is read as
    /// EV_SYN codes, as libevemu does.
    mutating func readMask(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
                           line: Int) throws(RecordingError) {
        let fields = ByteFields.split(bytes, from: start, to: end)
        guard fields.count == 9 else {
            throw error(line, "expected 9 fields after 'B:' (event type, then 8 hexadecimal bytes), "
                        + "found \(fields.count)")
        }
        let type: Int
        switch ByteFields.hex(bytes, fields[0], maximum: 0x1f) {
        case .value(let value): type = Int(value)
        case .notANumber:
            throw error(line, "the event type \(ByteFields.quoted(bytes, fields[0])) is not a hexadecimal number")
        case .outOfRange:
            throw error(line, "the event type \(ByteFields.quoted(bytes, fields[0])) is out of range "
                        + "(the largest is 1f, EV_MAX)")
        }
        let mask = try maskBytes(bytes, fields[1...], what: "mask byte", line: line)
        let base = maskBits[type]
        guard base + 64 <= 0x1_0000 else {
            throw error(line, "too many 'B:' lines for event type \(hex2(type)): its codes would pass ffff")
        }
        for bit in 0..<64 where mask[bit / 8] & (1 << (bit % 8)) != 0 {
            codes[UInt16(type), default: []].insert(UInt16(base + bit))
        }
        maskBits[type] = base + 64
    }

    // MARK: Axes and states

    /// `A: code min max fuzz flat [resolution]`: 5 numbers in format 1.0 and
    /// 1.1, 6 from 1.2 on.
    mutating func readAbsInfo(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
                              line: Int) throws(RecordingError) {
        let fields = ByteFields.split(bytes, from: start, to: end)
        let hasResolution = version.major > 1 || (version.major == 1 && version.minor >= 2)
        let needed = hasResolution ? 6 : 5
        guard fields.count == needed else {
            let fileKind = versionLine == 0
                ? "a file without a '# EVEMU' version line (format 1.0)"
                : "an EVEMU \(version.major).\(version.minor) file"
            var message = hasResolution
                ? "expected 6 fields after 'A:' (code min max fuzz flat resolution) in \(fileKind), found \(fields.count)"
                : "expected 5 fields after 'A:' (code min max fuzz flat) in \(fileKind), found \(fields.count)"
            if !hasResolution && fields.count == 6 {
                message += "; a resolution field needs '# EVEMU 1.2' or later as the first line"
            }
            throw error(line, message)
        }
        let code: UInt16
        switch ByteFields.hex(bytes, fields[0], maximum: 0xffff) {
        case .value(let value): code = UInt16(value)
        case .notANumber:
            throw error(line, "the axis code \(ByteFields.quoted(bytes, fields[0])) is not a hexadecimal number")
        case .outOfRange:
            throw error(line, "the axis code \(ByteFields.quoted(bytes, fields[0])) is larger than ffff")
        }
        var numbers: [Int32] = []
        for (field, what) in zip(fields.dropFirst(), ["minimum", "maximum", "fuzz", "flat", "resolution"]) {
            switch ByteFields.int32(bytes, field) {
            case .value(let value): numbers.append(value)
            case .notANumber:
                throw error(line, "the \(what) \(ByteFields.quoted(bytes, field)) is not a decimal number")
            case .outOfRange:
                throw error(line, "the \(what) \(ByteFields.quoted(bytes, field)) does not fit in 32 bits")
            }
        }
        absInfo[code] = AbsInfo(value: 0, minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2],
                                flat: numbers[3], resolution: hasResolution ? numbers[4] : 0)
    }

    /// `L: code state` / `S: code state`: LED and switch states of old
    /// versions, checked and ignored.
    func readState(_ bytes: UnsafeBufferPointer<UInt8>, isLED: Bool, from start: Int, to end: Int,
                   line: Int) throws(RecordingError) {
        let prefix = isLED ? "L:" : "S:"
        let what = isLED ? "LED" : "switch"
        let fields = ByteFields.split(bytes, from: start, to: end)
        guard fields.count == 2 else {
            throw error(line, "expected 2 fields after '\(prefix)' (code state), found \(fields.count)")
        }
        switch ByteFields.hex(bytes, fields[0], maximum: 0xffff) {
        case .value: break
        case .notANumber, .outOfRange:
            throw error(line, "the \(what) code \(ByteFields.quoted(bytes, fields[0])) is not a hexadecimal "
                        + "number up to ffff")
        }
        switch ByteFields.int32(bytes, fields[1]) {
        case .value: break
        case .notANumber, .outOfRange:
            throw error(line, "the \(what) state \(ByteFields.quoted(bytes, fields[1])) is not a 32-bit decimal number")
        }
    }
}

/// Two lowercase hex digits at least, as evemu prints types and codes.
func hex2(_ value: Int) -> String {
    let digits = String(value, radix: 16)
    return digits.count < 2 ? "0" + digits : digits
}
