/// `state`'s `latency`: how long the last minute's touches took, as the
/// daemon measured them (`transitiond_input_to_write_seconds`) and as the
/// clients' presented frames say (`transitiond_touch_to_frame_seconds`);
/// each absent without samples in that minute.
public struct LatencyStatus: Sendable, Equatable {
    /// Medians and 95th percentiles of one measure, in seconds.
    public struct Summary: Sendable, Equatable {
        public var p50: Double
        public var p95: Double
        public var samples: Int

        public init(p50: Double, p95: Double, samples: Int) {
            (self.p50, self.p95, self.samples) = (p50, p95, samples)
        }
    }

    /// From an input event to the presented frame that showed it.
    public var touchToFrame: Summary?
    /// From an input event to the first client write of what it caused.
    public var inputToWrite: Summary?

    public init(touchToFrame: Summary? = nil, inputToWrite: Summary? = nil) {
        self.touchToFrame = touchToFrame
        self.inputToWrite = inputToWrite
    }

    /// Nothing to say.
    public var isEmpty: Bool { touchToFrame == nil && inputToWrite == nil }

    /// `,"latency":{"touch_to_frame":{"p50":…,"p95":…,"samples":…},"input_to_write":{…}}`.
    func encode(into w: JSONWriter) {
        w.raw(",\"latency\":{")
        var first = true
        for (key, summary) in [("touch_to_frame", touchToFrame), ("input_to_write", inputToWrite)] {
            guard let summary else { continue }
            if !first { w.raw(",") }
            first = false
            w.string(key)
            w.raw(":{\"p50\":")
            w.number(summary.p50)
            w.raw(",\"p95\":")
            w.number(summary.p95)
            w.raw(",\"samples\":")
            w.integer(summary.samples)
            w.raw("}")
        }
        w.raw("}")
    }
}

extension Fields {
    /// A snapshot's `latency` (nil when absent).
    func latency() throws(StreamDecodeError) -> LatencyStatus? {
        guard let value = object["latency"], !value.isNull else { return nil }
        guard let entry = value.object else { throw bad("latency", "an object") }
        let inner = Fields(type: type, object: entry, prefix: prefix + "latency.")
        func summary(_ key: String) throws(StreamDecodeError) -> LatencyStatus.Summary? {
            guard let value = entry[key], !value.isNull else { return nil }
            guard let object = value.object else { throw inner.bad(key, "an object") }
            let fields = Fields(type: type, object: object, prefix: inner.prefix + key + ".")
            guard let samples = try fields.optionalInt("samples") else { throw fields.missing("samples") }
            return LatencyStatus.Summary(p50: try fields.number("p50"), p95: try fields.number("p95"), samples: samples)
        }
        let status = LatencyStatus(touchToFrame: try summary("touch_to_frame"), inputToWrite: try summary("input_to_write"))
        return status.isEmpty ? nil : status
    }
}
