import TransitionEngine
import WireFormat

extension StreamMessage {
    /// Decodes one line of the stream (with or without its `\n`). Unknown
    /// types are `.unknown`, unknown fields are ignored; a known type with a
    /// missing or mistyped field it needs is an error.
    public static func decode(line: [UInt8]) throws(StreamDecodeError) -> StreamMessage {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            throw .json(error)
        }
        return try decode(value)
    }

    /// Decodes one line given as text.
    public static func decode(line: String) throws(StreamDecodeError) -> StreamMessage {
        try decode(line: Array(line.utf8))
    }

    /// Decodes an already parsed line.
    public static func decode(_ value: JSONValue) throws(StreamDecodeError) -> StreamMessage {
        guard let object = value.object else { throw .notAnObject }
        guard let type = object["type"]?.string else { throw .missingType }
        let fields = Fields(type: type, object: object)
        switch type {
        case "hello":
            return .hello(try fields.snapshot())
        case "state":
            return .state(try fields.snapshot())
        case "pong":
            return .pong(id: object["id"])
        case "ok":
            return .ok(cmd: try fields.optionalString("cmd") ?? "", id: object["id"])
        case "error":
            return .error(code: try fields.string("code"), message: try fields.optionalString("message") ?? "",
                          id: object["id"])
        default:
            guard let kind = TransitionUpdate.Kind(rawValue: type) else { return .unknown(type: type) }
            return .event(try fields.update(kind))
        }
    }
}

// MARK: - Fields

/// Typed access to the fields of one line, with errors naming the line's
/// type and the field.
private struct Fields {
    let type: String
    let object: JSONObject

    func missing(_ field: String) -> StreamDecodeError { .missingField(type: type, field: field) }

    func bad(_ field: String, _ expected: String) -> StreamDecodeError {
        .badField(type: type, field: field, expected: expected)
    }

    func string(_ field: String) throws(StreamDecodeError) -> String {
        guard let value = try optionalString(field) else { throw missing(field) }
        return value
    }

    func optionalString(_ field: String) throws(StreamDecodeError) -> String? {
        guard let value = object[field], !value.isNull else { return nil }
        guard let s = value.string else { throw bad(field, "a string") }
        return s
    }

    func number(_ field: String) throws(StreamDecodeError) -> Double {
        guard let value = try optionalNumber(field) else { throw missing(field) }
        return value
    }

    func optionalNumber(_ field: String) throws(StreamDecodeError) -> Double? {
        guard let value = object[field], !value.isNull else { return nil }
        guard let x = value.double else { throw bad(field, "a number") }
        return x
    }

    func seq(_ field: String = "seq", required: Bool) throws(StreamDecodeError) -> UInt64 {
        guard let value = object[field], !value.isNull else {
            if required { throw missing(field) }
            return 0
        }
        guard let n = value.int, n >= 0 else { throw bad(field, "a non-negative integer") }
        return UInt64(n)
    }

    /// `"values":{"dim":0.16,…}`; absent is empty.
    func values(_ field: String = "values") throws(StreamDecodeError) -> [PropertyValue] {
        guard let value = object[field], !value.isNull else { return [] }
        guard let members = value.object else { throw bad(field, "an object of numbers") }
        var result: [PropertyValue] = []
        result.reserveCapacity(members.count)
        for member in members {
            guard let x = member.value.double else { throw bad("\(field).\(member.key)", "a number") }
            result.append(PropertyValue(member.key, x))
        }
        return result
    }

    func update(_ kind: TransitionUpdate.Kind) throws(StreamDecodeError) -> TransitionUpdate {
        var decision: Decision? = nil
        if let text = try optionalString("decision") {
            guard let d = Decision(rawValue: text) else { throw bad("decision", "\"finish\" or \"cancel\"") }
            decision = d
        }
        // A reason added by a newer daemon reads as nil rather than failing the line.
        let reason = try optionalString("reason").flatMap(EndReason.init(rawValue:))
        var synthetic = false
        if let flag = object["synthetic"], !flag.isNull {
            guard let b = flag.bool else { throw bad("synthetic", "true or false") }
            synthetic = b
        }
        return TransitionUpdate(
            kind: kind, transition: try string("transition"), seq: try seq(required: true),
            time: try number("time"), progress: try number("progress"), velocity: try number("velocity"),
            values: try values(), decision: decision, reason: reason, target: try optionalNumber("target"),
            synthetic: synthetic)
    }

    func snapshot() throws(StreamDecodeError) -> StreamSnapshot {
        var protocolVersion: Int? = nil
        if let value = object["protocol"], !value.isNull {
            guard let n = value.int else { throw bad("protocol", "an integer") }
            protocolVersion = n
        }
        var transitions: [TransitionInfo] = []
        for (k, item) in try array("transitions").enumerated() {
            let field = "transitions[\(k)]"
            guard let entry = item.object else { throw bad(field, "an object") }
            let inner = Fields(type: type, object: entry)
            guard let name = entry["name"]?.string else { throw bad("\(field).name", "a string") }
            var fingers: Int? = nil
            if let value = entry["fingers"], !value.isNull {
                guard let n = value.int else { throw bad("\(field).fingers", "an integer") }
                fingers = n
            }
            transitions.append(TransitionInfo(name: name, gesture: try inner.optionalString("gesture"),
                                              fingers: fingers, edge: try inner.optionalString("edge"),
                                              direction: try inner.optionalString("direction")))
        }
        var active: [ActiveTransition] = []
        for (k, item) in try array("active").enumerated() {
            let field = "active[\(k)]"
            guard let entry = item.object else { throw bad(field, "an object") }
            let inner = Fields(type: type, object: entry)
            guard let name = entry["transition"]?.string else { throw bad("\(field).transition", "a string") }
            guard let phaseText = entry["phase"]?.string,
                  let phase = TransitionPhase(rawValue: phaseText), phase != .idle else {
                throw bad("\(field).phase", "\"interacting\" or \"animating\"")
            }
            guard let progress = entry["progress"]?.double else { throw bad("\(field).progress", "a number") }
            var target: Double? = nil
            if let value = entry["target"], !value.isNull {
                guard let t = value.double else { throw bad("\(field).target", "a number") }
                target = t
            }
            let values: [PropertyValue]
            do {
                values = try inner.values()
            } catch {
                throw bad("\(field).values", "an object of numbers")
            }
            active.append(ActiveTransition(transition: name, phase: phase, progress: progress, target: target,
                                           values: values))
        }
        return StreamSnapshot(protocolVersion: protocolVersion, version: try optionalString("version"),
                              transitions: transitions, active: active, seq: try seq(required: false))
    }

    /// An array field; absent is empty.
    func array(_ field: String) throws(StreamDecodeError) -> [JSONValue] {
        guard let value = object[field], !value.isNull else { return [] }
        guard let items = value.array else { throw bad(field, "an array") }
        return items
    }
}
