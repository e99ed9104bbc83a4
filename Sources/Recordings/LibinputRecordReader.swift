import Engine

/// Reads `libinput record` files (YAML, file format version 1): the first
/// device's description from `devices[0].evdev` (`name`, `id`, `codes`,
/// `absinfo`, `properties`) and its events from the `evdev` items of
/// `devices[0].events`; other items (`libinput:` ones) are skipped. Errors
/// carry the YAML line.
public enum LibinputRecordReader {
    /// Parses a whole `libinput record` file. Event times are microseconds
    /// since the start of the recording, as the file writes them.
    public static func parse(bytes: [UInt8], path: String) throws(RecordingError)
        -> (description: DeviceDescription, events: [InputEvent]) {
        let root: YAMLNode?
        do {
            root = try YAMLReader.read(bytes)
        } catch {
            throw RecordingError(file: path, line: error.line, message: "not valid YAML: \(error.message)")
        }
        guard let root else {
            throw RecordingError(file: path, line: 1, message: "the file is empty: expected a libinput record "
                                 + "(version: 1, devices: …)")
        }
        return try YAMLTreeReader(path: path).recording(root)
    }
}

/// Walks the YAML tree of one `libinput record` file.
struct YAMLTreeReader {
    let path: String

    func error(_ node: YAMLNode?, _ message: String) -> RecordingError {
        RecordingError(file: path, line: node?.line, message: message)
    }

    // MARK: Document

    func recording(_ root: YAMLNode) throws(RecordingError) -> (description: DeviceDescription, events: [InputEvent]) {
        guard root.mapping != nil else {
            throw error(root, "expected a libinput record (a mapping with version: and devices:) at the top")
        }
        guard let versionNode = root["version"] else {
            throw error(root, "missing 'version:' (libinput record files start with 'version: 1')")
        }
        let version = try integer(versionNode, "the version", in: Int64.min...Int64.max)
        guard version == 1 else {
            throw error(versionNode, "unsupported libinput record version \(version): this reads version 1")
        }
        guard let devicesNode = root["devices"] else {
            throw error(root, "missing 'devices:': the recording has no device")
        }
        guard let devices = devicesNode.sequence else {
            throw error(devicesNode, "'devices' should be a list of devices")
        }
        guard let deviceNode = devices.first else {
            throw error(devicesNode, "'devices' is empty: the recording has no device")
        }
        guard deviceNode.mapping != nil else {
            throw error(deviceNode, "the device should be a mapping (node:, evdev:, events:)")
        }
        guard let evdevNode = deviceNode["evdev"] else {
            throw error(deviceNode, "the device has no 'evdev:' description")
        }
        let description = try self.description(evdevNode)
        let events = try self.events(deviceNode["events"])
        return (description, events)
    }

    // MARK: Description

    func description(_ node: YAMLNode) throws(RecordingError) -> DeviceDescription {
        guard node.mapping != nil else {
            throw error(node, "'evdev' should be a mapping (name:, id:, codes:, absinfo:, properties:)")
        }
        guard let nameNode = node["name"] else {
            throw error(node, "the device has no 'name:'")
        }
        guard let name = nameNode.scalar else {
            throw error(nameNode, "the device name should be text")
        }
        guard let idNode = node["id"] else {
            throw error(node, "the device has no 'id:' (bus vendor product version)")
        }
        let ids = try integers(idNode, "the id", count: 4, in: 0...0xffff)

        var codes: [UInt16: Set<UInt16>] = [:]
        for (typeNode, codesNode) in try pairs(node["codes"], "'codes'") {
            let type = UInt16(try integer(typeNode, "the event type", in: 0...0xffff))
            var set = Set<UInt16>()
            for codeNode in try list(codesNode, "the codes of event type \(type)") {
                set.insert(UInt16(try integer(codeNode, "the event code", in: 0...0xffff)))
            }
            if !set.isEmpty { codes[type, default: []].formUnion(set) }
        }

        var absInfo: [UInt16: AbsInfo] = [:]
        for (codeNode, rangeNode) in try pairs(node["absinfo"], "'absinfo'") {
            let code = UInt16(try integer(codeNode, "the axis code", in: 0...0xffff))
            let numbers = try integers(rangeNode, "the absinfo of axis \(code) (min max fuzz flat resolution)",
                                       count: 5, in: Int64(Int32.min)...Int64(Int32.max))
            absInfo[code] = AbsInfo(value: 0, minimum: Int32(numbers[0]), maximum: Int32(numbers[1]),
                                    fuzz: Int32(numbers[2]), flat: Int32(numbers[3]),
                                    resolution: Int32(numbers[4]))
        }

        var properties = Set<Int>()
        for propertyNode in try list(node["properties"], "'properties'") {
            properties.insert(Int(try integer(propertyNode, "the property", in: 0...0xffff)))
        }

        return DeviceDescription(name: name, bus: UInt16(ids[0]), vendor: UInt16(ids[1]),
                                 product: UInt16(ids[2]), version: UInt16(ids[3]), codes: codes,
                                 properties: properties, absInfo: absInfo)
    }

    // MARK: Events

    /// `[{evdev: [[sec, usec, type, code, value], …]}, {libinput: …}, …]`.
    func events(_ node: YAMLNode?) throws(RecordingError) -> [InputEvent] {
        var events: [InputEvent] = []
        for item in try list(node, "'events'") {
            guard item.mapping != nil else {
                throw error(item, "each item of 'events' should be a mapping such as 'evdev: [...]'")
            }
            guard let rows = item["evdev"] else { continue }
            for row in try list(rows, "'evdev'") {
                guard let fields = row.sequence, fields.count == 5 else {
                    let found = row.sequence.map { "\($0.count) numbers" } ?? "no list"
                    throw error(row, "expected an event [sec, usec, type, code, value], found \(found)")
                }
                let seconds = try integer(fields[0], "the seconds", in: 0...EvemuEventLine.maximumSecondsSigned)
                let micros = try integer(fields[1], "the microseconds", in: 0...999_999)
                let type = try integer(fields[2], "the event type", in: 0...0xffff)
                let code = try integer(fields[3], "the event code", in: 0...0xffff)
                let value = try integer(fields[4], "the event value", in: Int64(Int32.min)...Int64(Int32.max))
                events.append(InputEvent(time: seconds * 1_000_000 + micros, type: UInt16(type),
                                         code: UInt16(code), value: Int32(value)))
            }
        }
        return events
    }

    // MARK: Nodes

    /// A sequence's items; a missing or null node is an empty list.
    func list(_ node: YAMLNode?, _ what: String) throws(RecordingError) -> [YAMLNode] {
        guard let node, !node.isNull else { return [] }
        guard let sequence = node.sequence else {
            throw error(node, "\(what) should be a list")
        }
        return sequence
    }

    /// A mapping's pairs; a missing or null node is an empty mapping.
    func pairs(_ node: YAMLNode?, _ what: String) throws(RecordingError) -> [(YAMLNode, YAMLNode)] {
        guard let node, !node.isNull else { return [] }
        guard let mapping = node.mapping else {
            throw error(node, "\(what) should be a mapping")
        }
        return mapping.map { (YAMLNode(content: .scalar($0.key, plain: true), line: $0.value.line), $0.value) }
    }

    /// A decimal integer scalar in `range`.
    func integer(_ node: YAMLNode, _ what: String, in range: ClosedRange<Int64>) throws(RecordingError) -> Int64 {
        guard let text = node.scalar else {
            throw error(node, "\(what) should be a number")
        }
        guard let value = Int64(text) else {
            throw error(node, "\(what) '\(text.prefix(40))' is not an integer")
        }
        guard range.contains(value) else {
            throw error(node, "\(what) \(value) is out of range (\(range.lowerBound) to \(range.upperBound))")
        }
        return value
    }

    /// A list of exactly `count` integers in `range`.
    func integers(_ node: YAMLNode, _ what: String, count: Int,
                  in range: ClosedRange<Int64>) throws(RecordingError) -> [Int64] {
        guard let sequence = node.sequence, sequence.count == count else {
            let found = node.sequence.map { "\($0.count)" } ?? "no list"
            throw error(node, "\(what) should be a list of \(count) numbers, found \(found)")
        }
        var numbers: [Int64] = []
        for item in sequence {
            numbers.append(try integer(item, "a number in \(what)", in: range))
        }
        return numbers
    }
}
