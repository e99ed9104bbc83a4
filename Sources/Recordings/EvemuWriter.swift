import Engine

/// Writes evemu files in format 1.3, the layout `evemu-record` writes and
/// libevemu reads: a `#` comment block describing the device, the `N:`,
/// `I:`, `P:`, `B:` and `A:` (6 fields) lines, then one `E:` line per event
/// with its time relative to the first event (which is at 0.000000) and a
/// readable comment.
///
/// What a description cannot carry into the format: types above 0x1f,
/// newlines in the name (written as spaces) and an empty name (written as
/// `unnamed`). `B:` lines come from `codes` and `A:` lines from `absInfo`, so
/// reading the file back gives the same description.
public enum EvemuWriter {
    /// A whole file: the description, then the events.
    /// Without `comments`, the `E:` lines carry no comment (a third of the size).
    /// `origin`: the time (µs) written as 0.000000; nil for the first event's.
    /// `header`: comment lines (without `# `) written after the version line.
    public static func write(description: DeviceDescription, events: [InputEvent], comments: Bool = true,
                             origin: Int64? = nil, header: [String] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096 + events.count * (comments ? 64 : 28))
        writeDescription(description, header: header, into: &bytes)
        var eventWriter = EvemuEventWriter(comments: comments, origin: origin)
        for event in events {
            eventWriter.write(event, into: &bytes)
        }
        return bytes
    }

    /// The description part of a file, up to the "Waiting for events"
    /// banner, for writers that stream the events after it.
    public static func writeDescription(_ description: DeviceDescription, header: [String] = [],
                                        into bytes: inout [UInt8]) {
        var text = "# EVEMU 1.3\n"
        // One line each: a line break in a header line would end the comment.
        for line in header { text += "# " + String(line.map { $0.isNewline ? " " : $0 }) + "\n" }
        text += comments(describing: description)
        text += "N: \(writtenName(description.name))\n"
        text += "I: \(hex(description.bus, 4)) \(hex(description.vendor, 4)) "
            + "\(hex(description.product, 4)) \(hex(description.version, 4))\n"
        text += propertyLines(description.properties)
        text += maskLines(description.codes)
        for code in description.absInfo.keys.sorted() {
            guard let info = description.absInfo[code] else { continue }
            text += "A: \(hex(code, 2)) \(info.minimum) \(info.maximum) \(info.fuzz) \(info.flat) \(info.resolution)\n"
        }
        text += "################################\n"
        text += "#      Waiting for events      #\n"
        text += "################################\n"
        bytes.append(contentsOf: text.utf8)
    }

    // MARK: Comment block

    /// The evtest-like comment block evemu writes after the version line.
    static func comments(describing description: DeviceDescription) -> String {
        var text = "# Input device name: \"\(writtenName(description.name))\"\n"
        text += "# Input device ID: bus \(idHex(description.bus)) vendor \(idHex(description.vendor)) "
            + "product \(idHex(description.product)) version \(idHex(description.version))\n"
        if let x = description.absInfo[EventCode.ABS_X], let y = description.absInfo[EventCode.ABS_Y],
           x.resolution != 0, y.resolution != 0 {
            let width = (Int(x.maximum) - Int(x.minimum)) / Int(x.resolution)
            let height = (Int(y.maximum) - Int(y.minimum)) / Int(y.resolution)
            if width != 0 && height != 0 {
                text += "# Size in mm: \(width)x\(height)\n"
            }
        }
        text += "# Supported events:\n"
        for type in description.codes.keys.sorted() where type < 0x20 {
            text += "#   Event type \(type) (\(EventNames.type(type)))\n"
            for code in (description.codes[type] ?? []).sorted() {
                text += "#     Event code \(code) (\(EventNames.code(type: type, code: code)))\n"
                guard type == EventCode.EV_ABS else { continue }
                let info = description.absInfo[code] ?? AbsInfo(minimum: 0, maximum: 0)
                text += "#       Value   \(padded(info.value, 6))\n"
                text += "#       Min     \(padded(info.minimum, 6))\n"
                text += "#       Max     \(padded(info.maximum, 6))\n"
                text += "#       Fuzz    \(padded(info.fuzz, 6))\n"
                text += "#       Flat    \(padded(info.flat, 6))\n"
                text += "#       Resolution \(padded(info.resolution, 3))\n"
            }
        }
        text += "# Properties:\n"
        for property in description.properties.sorted() {
            text += "#   Property  type \(property) (\(EventNames.property(property)))\n"
        }
        return text
    }

    // MARK: Bit masks

    /// The highest code of each type evemu writes a mask for (libevdev's
    /// `*_MAX`); evemu writes whole 8-byte lines covering codes 0...max.
    static let typeMaxima: [UInt16: Int] = [
        0x01: 0x2ff, 0x02: 0x0f, 0x03: 0x3f, 0x04: 0x07, 0x05: 0x10,
        0x11: 0x0f, 0x12: 0x07, 0x14: 0x01, 0x15: 0x7f,
    ]

    /// `P:` lines: one, or more when a property is past 63.
    static func propertyLines(_ properties: Set<Int>) -> String {
        let valid = properties.filter { $0 >= 0 && $0 < 0x1_0000 }
        let lineCount = max(1, ((valid.max() ?? 0) + 64) / 64)
        var text = ""
        for line in 0..<lineCount {
            text += "P:" + maskBytes(line: line) { valid.contains($0) } + "\n"
        }
        return text
    }

    /// `B:` lines: EV_SYN first (one line, with the description's EV_SYN
    /// codes; evemu writes a constant `0b` there, which is what devices
    /// report), then every type evemu writes and every other type with
    /// codes, each with as many lines as its largest code needs.
    static func maskLines(_ codes: [UInt16: Set<UInt16>]) -> String {
        let types = Set(typeMaxima.keys).union(codes.keys.filter { $0 < 0x20 }).union([EventCode.EV_SYN])
        var text = ""
        for type in types.sorted() {
            let set = codes[type] ?? []
            let standardLines = typeMaxima[type].map { (($0 + 1 + 7) / 8 + 7) / 8 } ?? 0
            let neededLines = set.max().map { (Int($0) + 64) / 64 } ?? 0
            let lineCount = max(type == EventCode.EV_SYN ? 1 : 0, standardLines, neededLines)
            for line in 0..<lineCount {
                text += "B: \(hex(type, 2))" + maskBytes(line: line) { $0 <= 0xffff && set.contains(UInt16($0)) } + "\n"
            }
        }
        return text
    }

    /// " xx xx xx xx xx xx xx xx" for bits 64*line ..< 64*(line+1).
    static func maskBytes(line: Int, isSet: (Int) -> Bool) -> String {
        var text = ""
        for byteIndex in 0..<8 {
            var byte = 0
            for bit in 0..<8 where isSet(line * 64 + byteIndex * 8 + bit) {
                byte |= 1 << bit
            }
            text += " " + hex(byte, 2)
        }
        return text
    }

    // MARK: Formatting

    static func writtenName(_ name: String) -> String {
        let single = String(name.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
        return single.isEmpty ? "unnamed" : single
    }

    /// Lowercase hex, zero-padded to `width` (printf `%0Nx`).
    static func hex<Number: BinaryInteger>(_ value: Number, _ width: Int) -> String {
        let digits = String(value, radix: 16)
        return digits.count < width ? String(repeating: "0", count: width - digits.count) + digits : digits
    }

    /// printf `%#04x`: `0000` for zero, else `0x` and at least two digits.
    static func idHex(_ value: UInt16) -> String {
        value == 0 ? "0000" : "0x" + hex(value, 2)
    }

    /// printf `%Nd`: right-aligned in `width` columns.
    static func padded(_ value: Int32, _ width: Int) -> String {
        let digits = String(value)
        return digits.count < width ? String(repeating: " ", count: width - digits.count) + digits : digits
    }
}

/// Writes `E:` lines one at a time, as `evemu-record` does: times relative
/// to the first event written (0.000000; a later event that is earlier than
/// the first is written at 0), or to a given origin (an event before it is
/// written at 0), `%04x` type and code, `%04d` value, and a
/// comment naming the event (with the milliseconds since the previous
/// SYN_REPORT on SYN_REPORT lines).
public struct EvemuEventWriter: Sendable {
    private var start: Int64?
    private var lastSyncMilliseconds: Int64 = 0
    private let comments: Bool

    /// `origin`: the time (µs) written as 0.000000, so that times keep
    /// their place on a clock of their own (`replay --copy`: the
    /// recording's, where the first event written may come late); nil: the
    /// first event's time.
    public init(comments: Bool = true, origin: Int64? = nil) {
        self.comments = comments
        start = origin
    }

    public mutating func write(_ event: InputEvent, into bytes: inout [UInt8]) {
        let first = start ?? event.time
        start = first
        let (difference, overflow) = event.time.subtractingReportingOverflow(first)
        let relative = overflow || difference < 0 ? 0 : difference
        let seconds = relative / 1_000_000
        let micros = relative % 1_000_000

        bytes.append(contentsOf: "E: ".utf8)
        bytes.append(contentsOf: String(seconds).utf8)
        bytes.append(0x2e)
        appendPadded(micros, width: 6, into: &bytes)
        bytes.append(0x20)
        bytes.append(contentsOf: EvemuWriter.hex(event.type, 4).utf8)
        bytes.append(0x20)
        bytes.append(contentsOf: EvemuWriter.hex(event.code, 4).utf8)
        bytes.append(0x20)
        // printf "%04d": the sign counts in the width.
        let value = Int64(event.value)
        if value < 0 {
            bytes.append(0x2d)
            appendPadded(-value, width: 3, into: &bytes)
        } else {
            appendPadded(value, width: 4, into: &bytes)
        }
        if comments {
            bytes.append(0x09)
            bytes.append(contentsOf: comment(for: event, milliseconds: seconds * 1000 + micros / 1000).utf8)
        }
        bytes.append(0x0a)
    }

    private mutating func comment(for event: InputEvent, milliseconds: Int64) -> String {
        let codeName = EventNames.code(type: event.type, code: event.code)
        guard event.type == EventCode.EV_SYN else {
            let padding = String(repeating: " ", count: max(0, 20 - codeName.count))
            return "# \(EventNames.type(event.type)) / \(codeName)\(padding) \(event.value)"
        }
        if event.code == EventCode.SYN_MT_REPORT {
            return "# ++++++++++++ \(codeName) (\(event.value)) ++++++++++"
        }
        let elapsed = milliseconds - lastSyncMilliseconds
        lastSyncMilliseconds = milliseconds
        return "# ------------ \(codeName) (\(event.value)) ---------- \(elapsed >= 0 ? "+" : "")\(elapsed)ms"
    }

    private func appendPadded(_ value: Int64, width: Int, into bytes: inout [UInt8]) {
        let digits = String(value)
        for _ in digits.utf8.count..<max(width, digits.utf8.count) {
            bytes.append(0x30)
        }
        bytes.append(contentsOf: digits.utf8)
    }
}
