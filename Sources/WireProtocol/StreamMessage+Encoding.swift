extension StreamMessage {
    /// The line as the daemon writes it, with its `\n`.
    public func encodedLine() -> [UInt8] {
        let w = JSONWriter(capacity: 256)
        encode(into: w)
        return w.bytes
    }

    /// Appends the line (with its `\n`): fields in the daemon's order,
    /// numbers in the stream's format (`JSONWriter`), a reply's `id` last.
    public func encode(into w: JSONWriter) {
        switch self {
        case .hello(let snapshot):
            snapshot.encode(type: "hello", into: w)
        case .state(let snapshot, let id):
            snapshot.encode(type: "state", id: id, into: w)
        case .event(let update):
            update.encode(into: w)
        case .pong(let id):
            w.raw("{\"type\":\"pong\"")
            w.id(id)
        case .clock(let monotonic, let id):
            w.raw("{\"type\":\"clock\",\"monotonic\":")
            w.number(monotonic)
            w.id(id)
        case .ok(let cmd, let id):
            w.raw("{\"type\":\"ok\",\"cmd\":")
            w.string(cmd)
            w.id(id)
        case .error(let code, let message, let cmd, let id):
            w.raw("{\"type\":\"error\",\"code\":")
            w.string(code)
            w.raw(",\"message\":")
            w.string(message)
            if let cmd {
                w.raw(",\"cmd\":")
                w.string(cmd)
            }
            w.id(id)
        case .dump(let recordings, let id):
            w.raw("{\"type\":\"dump\",\"recordings\":[")
            for (k, recording) in recordings.enumerated() {
                w.raw(k > 0 ? ",{\"source\":" : "{\"source\":")
                w.integer(recording.source)
                w.raw(",\"path\":")
                w.string(recording.path)
                w.raw(",\"events\":")
                w.integer(recording.events)
                w.raw(",\"evemu\":")
                w.string(recording.evemu)
                w.raw("}")
            }
            w.raw("]")
            w.id(id)
        case .unknown(let type):
            w.raw("{\"type\":")
            w.string(type)
        }
        w.raw("}\n")
    }
}

extension TransitionUpdate {
    /// The event's line (with its `\n`), plus `"synthetic":true` when it is
    /// a client's: a line a consumer of the daemon's stream reads like any
    /// other. The daemon's own lines come from `EventLineEncoder`, which
    /// writes the same bytes (a test holds them to it).
    public func encodedLine() -> [UInt8] {
        StreamMessage.event(self).encodedLine()
    }

    /// Appends the line without its closing `}\n`.
    func encode(into w: JSONWriter) {
        w.raw("{\"type\":")
        w.string(kind.rawValue)
        w.raw(",\"transition\":")
        w.string(transition)
        w.raw(",\"seq\":")
        w.integer(seq)
        w.raw(",\"time\":")
        w.number(time)
        w.raw(",\"progress\":")
        w.number(progress)
        w.raw(",\"velocity\":")
        w.number(velocity)
        w.values(values)
        if let decision {
            w.raw(",\"decision\":")
            w.string(decision.rawValue)
        }
        if let reason {
            w.raw(",\"reason\":")
            w.string(reason.rawValue)
        }
        if let target {
            w.raw(",\"target\":")
            w.number(target)
        }
        if let index {
            w.raw(",\"index\":")
            w.integer(index)
        }
        if let position {
            w.raw(",\"position\":{\"x\":")
            w.number(position.x)
            w.raw(",\"y\":")
            w.number(position.y)
            w.raw("}")
        }
        if synthetic { w.raw(",\"synthetic\":true") }
    }
}

extension JSONWriter {
    /// `,"values":{"dim":0.16,…}`.
    func values(_ values: [PropertyValue]) {
        raw(",\"values\":{")
        for (k, value) in values.enumerated() {
            if k > 0 { raw(",") }
            string(value.property)
            raw(":")
            number(value.value)
        }
        raw("}")
    }

    /// `,"id":…` when there is one: a reply echoes its command's.
    func id(_ id: RequestID?) {
        guard let id else { return }
        raw(",\"id\":")
        switch id {
        case .number(let n): integer(n)
        case .text(let s): string(s)
        }
    }
}
