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
            return .state(try fields.snapshot(), id: fields.id)
        case "dump":
            return .dump(try fields.recordings(), id: fields.id)
        case "pong":
            return .pong(id: fields.id)
        case "clock":
            return .clock(monotonic: try fields.number("monotonic"), id: fields.id)
        case "ok":
            return .ok(cmd: try fields.optionalString("cmd") ?? "", id: fields.id)
        case "error":
            return .error(code: try fields.string("code"), message: try fields.optionalString("message") ?? "",
                          cmd: try fields.optionalString("cmd"), id: fields.id)
        default:
            guard let kind = TransitionUpdate.Kind(rawValue: type) else { return .unknown(type: type) }
            return .event(try fields.update(kind))
        }
    }
}

extension Fields {
    func update(_ kind: TransitionUpdate.Kind) throws(StreamDecodeError) -> TransitionUpdate {
        var decision: TransitionUpdate.Decision? = nil
        if let text = try optionalString("decision") {
            guard let d = TransitionUpdate.Decision(rawValue: text) else { throw bad("decision", "\"finish\", \"cancel\" or \"snap\"") }
            decision = d
        }
        // A reason added by a newer daemon reads as nil rather than failing the line.
        let reason = try optionalString("reason").flatMap(TransitionUpdate.Reason.init(rawValue:))
        var position: TransitionUpdate.Position? = nil
        if let value = object["position"], !value.isNull {
            guard let point = value.object, let x = point["x"]?.double, let y = point["y"]?.double else {
                throw bad("position", "an object of numbers x and y")
            }
            position = TransitionUpdate.Position(x: x, y: y)
        }
        return TransitionUpdate(
            kind: kind, transition: try string("transition"), seq: try seq(),
            time: try number("time"), progress: try number("progress"), velocity: try number("velocity"),
            values: try values(), decision: decision, reason: reason, target: try optionalNumber("target"),
            position: position, synthetic: try optionalBool("synthetic") ?? false, index: try optionalInt("index"))
    }

    /// `dump`'s `"recordings":[{"source":0,"path":…,"events":862,"evemu":…}]`.
    func recordings() throws(StreamDecodeError) -> [DumpRecording] {
        var recordings: [DumpRecording] = []
        for (k, item) in try array("recordings").enumerated() {
            guard let entry = item.object else { throw bad("recordings[\(k)]", "an object") }
            let inner = Fields(type: type, object: entry, prefix: prefix + "recordings[\(k)].")
            guard let source = try inner.optionalInt("source") else { throw inner.missing("source") }
            recordings.append(DumpRecording(source: source, path: try inner.string("path"),
                                            events: try inner.optionalInt("events") ?? 0, evemu: try inner.string("evemu")))
        }
        return recordings
    }
}
