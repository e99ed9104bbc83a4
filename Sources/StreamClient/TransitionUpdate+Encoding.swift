import EventStream

extension TransitionUpdate {
    /// The update as a stream line (with its `\n`), in the daemon's field
    /// order and number format (EventStream's `JSONWriter`), plus
    /// `"synthetic":true` when it is synthetic: a line a consumer of the
    /// daemon's stream reads like any other.
    public func encodedLine() -> [UInt8] {
        let w = JSONWriter(capacity: 256)
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
        w.raw(",\"values\":{")
        for (k, value) in values.enumerated() {
            if k > 0 { w.raw(",") }
            w.string(value.property)
            w.raw(":")
            w.number(value.value)
        }
        w.raw("}")
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
        if synthetic { w.raw(",\"synthetic\":true") }
        w.raw("}\n")
        return w.bytes
    }
}
