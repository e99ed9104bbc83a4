/// One live panel's health in `hello`'s and `state`'s `"panels":[…]`
/// (docs/protocol.md, "Panel health"): its report rate while a contact
/// moves, the jitter of its reports, and what went wrong with its input.
public struct PanelStatus: Sendable, Equatable {
    /// The panel's source number (as in `devices`).
    public var source: Int
    public var path: String
    /// `true` when the median report rate while touched is below `[input] min_report_rate`.
    public var degraded: Bool
    /// Report intervals the rates are measured on (the recent window).
    public var samples: Int
    /// Hz, the median and the 5th percentile of the report rate while a
    /// contact moves; nil before the first interval.
    public var reportRate: Double?
    public var reportRateP5: Double?
    /// The interquartile range of the report intervals, in milliseconds; nil before the first interval.
    public var jitterMilliseconds: Double?
    /// `SYN_DROPPED` resyncs, ghost taps quarantined, contacts ended as stuck, since the panel attached.
    public var resyncs: Int
    public var ghostTouches: Int
    public var stuckContacts: Int

    public init(source: Int, path: String, degraded: Bool = false, samples: Int = 0, reportRate: Double? = nil,
                reportRateP5: Double? = nil, jitterMilliseconds: Double? = nil, resyncs: Int = 0,
                ghostTouches: Int = 0, stuckContacts: Int = 0) {
        (self.source, self.path, self.degraded, self.samples) = (source, path, degraded, samples)
        (self.reportRate, self.reportRateP5, self.jitterMilliseconds) = (reportRate, reportRateP5, jitterMilliseconds)
        (self.resyncs, self.ghostTouches, self.stuckContacts) = (resyncs, ghostTouches, stuckContacts)
    }

    /// `{"source":0,"path":…,"degraded":false,"samples":128,"report_rate_hz":120,"report_rate_p5_hz":118.5,"jitter_ms":0.4,"resyncs":0,"ghost_touches":0,"stuck_contacts":0}`;
    /// the rates and the jitter absent before the first interval.
    func encode(into w: JSONWriter) {
        w.raw("{\"source\":")
        w.integer(source)
        w.raw(",\"path\":")
        w.string(path)
        w.raw(degraded ? ",\"degraded\":true" : ",\"degraded\":false")
        w.raw(",\"samples\":")
        w.integer(samples)
        for (key, value) in [(",\"report_rate_hz\":" as StaticString, reportRate), (",\"report_rate_p5_hz\":", reportRateP5),
                             (",\"jitter_ms\":", jitterMilliseconds)] {
            guard let value else { continue }
            w.raw(key)
            w.number(value)
        }
        w.raw(",\"resyncs\":")
        w.integer(resyncs)
        w.raw(",\"ghost_touches\":")
        w.integer(ghostTouches)
        w.raw(",\"stuck_contacts\":")
        w.integer(stuckContacts)
        w.raw("}")
    }
}

/// A host's input status for `hello` and `state`: its string fields in
/// order (`"input":"attached"`, …; empty: nothing to say) and, live, every
/// attached panel's health (`"panels"`; empty in a replay).
public struct HostInputStatus: Sendable, ExpressibleByArrayLiteral {
    public var fields: [(key: String, value: String)]
    public var panels: [PanelStatus]

    public init(fields: [(key: String, value: String)] = [], panels: [PanelStatus] = []) {
        self.fields = fields
        self.panels = panels
    }

    public init(arrayLiteral elements: (key: String, value: String)...) {
        self.init(fields: elements)
    }
}
