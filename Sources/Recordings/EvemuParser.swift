import Engine

/// Reads evemu files (`evemu-record`, `evemu-describe`), file format versions
/// 1.0 to 1.3: a device description (`N:`, `I:`, `P:`, `B:`, `A:` lines, with
/// old `L:`/`S:` lines accepted and ignored) and/or events (`E:` lines), with
/// `#` comments, blank lines, CRLF line endings and trailing comments after
/// events. Any byte sequence either parses or throws a `RecordingError`
/// naming the 1-based line and what is wrong.
public enum EvemuParser {
    /// Parses a whole evemu file. The description is nil when the file has
    /// none (an events-only recording); the events are in file order with
    /// times in microseconds as written.
    public static func parse(bytes: [UInt8], path: String) throws(RecordingError)
        -> (description: DeviceDescription?, events: [InputEvent]) {
        var parser = EvemuFileParser(path: path)
        parser.events.reserveCapacity(bytes.count / 30 + 8)
        try bytes.withUnsafeBufferPointer { (buffer) throws(RecordingError) in
            try parser.run(buffer)
        }
        return (try parser.finish(), parser.events)
    }

    /// The longest line read: four times the read size (1 MiB).
    static let longestLine = 4 * RecordingReader.chunkSize

    /// Parses the rest of an open file whose first `filled` bytes are
    /// already in `buffer`, reading it in chunks of the buffer's size (grown
    /// only for a line longer than that).
    /// `handOver`, when given, is called after each chunk with the parser:
    /// it may take the events parsed so far (`read(path:descriptionPath:begin:more:)`).
    static func parse(file: borrowing InputFile, buffer: inout [UInt8], filled: Int,
                      handOver: (inout EvemuFileParser) -> Void = { _ in }) throws(RecordingError)
        -> (description: DeviceDescription?, events: [InputEvent]) {
        var parser = EvemuFileParser(path: file.path)
        parser.events.reserveCapacity((file.size ?? 0) / 30 + 8)
        var filled = filled
        var atEnd = filled < buffer.count
        while !atEnd {
            // Parse the complete lines; keep the partial last one for the next read.
            var lastNewline = filled - 1
            while lastNewline >= 0 && buffer[lastNewline] != ByteFields.newline { lastNewline -= 1 }
            if lastNewline >= 0 {
                try buffer.withUnsafeBufferPointer { (whole) throws(RecordingError) in
                    try parser.run(UnsafeBufferPointer(rebasing: whole[0...lastNewline]))
                }
                handOver(&parser)
                let rest = filled - lastNewline - 1
                buffer.withUnsafeMutableBufferPointer { bytes in
                    guard let base = bytes.baseAddress else { return }
                    base.update(from: base + lastNewline + 1, count: rest)
                }
                filled = rest
            } else {
                // No line end in a whole buffer: a line that long is not
                // evemu's (its lines are tens of bytes), and reading on
                // could take any amount of memory (`/dev/zero`).
                guard buffer.count < Self.longestLine else {
                    throw RecordingError(file: file.path, line: parser.line,
                                         message: "a line longer than \(Self.longestLine / 1024) KiB: not an evemu recording")
                }
                buffer.append(contentsOf: repeatElement(0, count: buffer.count))
            }
            let got = try file.fill(&buffer, from: filled)
            filled += got
            atEnd = filled < buffer.count
        }
        try buffer.withUnsafeBufferPointer { (whole) throws(RecordingError) in
            try parser.run(UnsafeBufferPointer(rebasing: whole[0..<filled]))
        }
        return (try parser.finish(), parser.events)
    }
}

/// The state of one pass over an evemu file.
struct EvemuFileParser {
    let path: String
    var events: [InputEvent] = []

    // MARK: State

    /// The format version from a `# EVEMU major.minor` comment, 1.0 without one.
    var version = (major: 1, minor: 0)
    var versionLine = 0
    /// True once a line other than a comment or a blank was seen: the
    /// version comment only counts before that.
    var sawContent = false
    var nameLine = 0
    var name = ""
    var idLine = 0
    var id: (bus: UInt16, vendor: UInt16, product: UInt16, version: UInt16) = (0, 0, 0, 0)
    var properties = Set<Int>()
    var propertyBits = 0
    var codes: [UInt16: Set<UInt16>] = [:]
    /// Bits already read per event type: each `B:` line for a type continues
    /// its mask 64 bits further.
    var maskBits = [Int](repeating: 0, count: 32)
    var absInfo: [UInt16: AbsInfo] = [:]
    var firstEventLine = 0
    /// The line the next `run` starts on.
    var line = 1

    init(path: String) {
        self.path = path
    }

    func error(_ line: Int, _ message: String) -> RecordingError {
        RecordingError(file: path, line: line, message: message)
    }

    // MARK: Lines

    /// Parses the lines in `buffer`; every line but the file's last ends
    /// with its newline inside the buffer.
    mutating func run(_ buffer: UnsafeBufferPointer<UInt8>) throws(RecordingError) {
        guard let bytes = buffer.baseAddress else { return }
        let end = buffer.count
        var index = 0
        var line = self.line
        defer { self.line = line }
        // A UTF-8 byte order mark before the first line.
        if line == 1 && end >= 3 && bytes[0] == 0xef && bytes[1] == 0xbb && bytes[2] == 0xbf {
            index = 3
        }
        var event = InputEvent(time: 0, type: 0, code: 0, value: 0)
        while index < end {
            if bytes[index] == 0x45 && index &+ 1 < end && bytes[index &+ 1] == 0x3a {
                if firstEventLine == 0 { try startEvents(line: line) }
                let next = EvemuEventLine.fast(bytes, index, end, &event)
                if next >= 0 {
                    events.append(event)
                    index = next
                    line &+= 1
                    continue
                }
            }
            let lineEnd = EvemuEventLine.lineEnd(bytes, index, end)
            try parseLine(buffer, from: index, to: lineEnd, line: line)
            index = lineEnd &+ 1
            line &+= 1
        }
    }

    /// The description, once the whole file was read.
    func finish() throws(RecordingError) -> DeviceDescription? {
        guard nameLine != 0 else { return nil }
        guard idLine != 0 else {
            throw error(nameLine, "the device name is not followed by an 'I:' line (bus vendor product version)")
        }
        return DeviceDescription(name: name, bus: id.bus, vendor: id.vendor, product: id.product,
                                 version: id.version, codes: codes, properties: properties,
                                 absInfo: absInfo)
    }

    mutating func parseLine(_ bytes: UnsafeBufferPointer<UInt8>, from lineStart: Int, to end: Int,
                            line: Int) throws(RecordingError) {
        var start = lineStart
        while start < end && ByteFields.isBlank(bytes[start]) { start += 1 }
        guard start < end else { return }
        let first = bytes[start]
        if first == ByteFields.hash {
            if !sawContent { readVersion(bytes, from: start + 1, to: end, line: line) }
            return
        }
        sawContent = true
        guard end - start >= 2 && bytes[start + 1] == 0x3a else {
            throw unknownLine(bytes, from: start, to: end, line: line)
        }
        let fieldsStart = start + 2
        switch first {
        case UInt8(ascii: "E"):
            if firstEventLine == 0 { try startEvents(line: line) }
            let event = try EvemuEventLine.checked(bytes, from: start, to: end) { self.error(line, $0) }
            events.append(event)
        case UInt8(ascii: "N"):
            try checkOrder("N:", line: line)
            try readName(bytes, from: fieldsStart, to: end, line: line)
        case UInt8(ascii: "I"):
            try checkOrder("I:", line: line)
            try readID(bytes, from: fieldsStart, to: end, line: line)
        case UInt8(ascii: "P"):
            try checkOrder("P:", line: line)
            try readProperties(bytes, from: fieldsStart, to: end, line: line)
        case UInt8(ascii: "B"):
            try checkOrder("B:", line: line)
            try readMask(bytes, from: fieldsStart, to: end, line: line)
        case UInt8(ascii: "A"):
            try checkOrder("A:", line: line)
            try readAbsInfo(bytes, from: fieldsStart, to: end, line: line)
        case UInt8(ascii: "L"), UInt8(ascii: "S"):
            try checkOrder(first == UInt8(ascii: "L") ? "L:" : "S:", line: line)
            try readState(bytes, isLED: first == UInt8(ascii: "L"), from: fieldsStart, to: end, line: line)
        default:
            throw unknownLine(bytes, from: start, to: end, line: line)
        }
    }

    func unknownLine(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
                     line: Int) -> RecordingError {
        let text = ByteFields.text(bytes, from: start, to: end, limit: 24)
        return error(line, "unknown line '\(text)': expected a comment ('#') or a line "
                     + "starting with N:, I:, P:, B:, A:, L:, S: or E:")
    }

    // MARK: Structure

    /// The first event: a description, if any, must be complete by now.
    mutating func startEvents(line: Int) throws(RecordingError) {
        if nameLine != 0 && idLine == 0 {
            throw error(line, "expected 'I:' (bus vendor product version) after the device name "
                        + "on line \(nameLine), found 'E:'")
        }
        firstEventLine = line
    }

    /// Description lines come before the events, in the order N:, I:, then
    /// the others.
    func checkOrder(_ prefix: String, line: Int) throws(RecordingError) {
        if firstEventLine != 0 {
            throw error(line, "'\(prefix)' after the events started on line \(firstEventLine): "
                        + "the description must come before the events")
        }
        switch prefix {
        case "N:":
            if nameLine != 0 {
                throw error(line, "a second device description starts here (the first 'N:' is on line \(nameLine))")
            }
        case "I:":
            if nameLine == 0 {
                throw error(line, "'I:' before the device name: a description starts with 'N:' then 'I:'")
            }
            if idLine != 0 {
                throw error(line, "a second 'I:' line (the first is on line \(idLine))")
            }
        default:
            if nameLine == 0 {
                throw error(line, "'\(prefix)' before the device name: a description starts with 'N:' then 'I:'")
            }
            if idLine == 0 {
                throw error(line, "expected 'I:' (bus vendor product version) after the device name "
                            + "on line \(nameLine), found '\(prefix)'")
            }
        }
    }
}
