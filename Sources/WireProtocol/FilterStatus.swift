import WireFormat

/// `hello`'s and `state`'s `"filter":{…}`, in filter mode only: what the
/// touch filter keeps from the UI's copy now (docs/protocol.md, "Filter
/// mode"). A rule that is off is absent on the wire.
public struct FilterStatus: Sendable, Equatable {
    /// `[input] filter_hold`: seconds a touch in a gesture's start area is held.
    public var hold: Double
    /// `max_contacts` of `[filter]` (nil: none).
    public var maxContacts: Int?
    /// `block` of `[filter]`: the gestures kept from the UI (`"pinch"`,
    /// `"swipe-2"`…; text, so that a gesture a newer daemon adds still reads).
    public var block: [String]
    /// `[[filter.region]]`, in order (the first that contains a touch's start applies).
    public var regions: [Region]
    /// `ghost_touches`: `quarantine` when on, nil when off (text: a policy a
    /// newer daemon adds still reads).
    public var ghostTouches: String?
    /// The ghost tap patterns confirmed and quarantined now, every panel's.
    public var ghostPatterns: [GhostPattern]
    /// `stuck_after` in seconds (nil: off).
    public var stuckAfter: Double?
    /// `palm_mm` (nil: only the panel's own `MT_TOOL_PALM`).
    public var palmMillimetres: Double?
    /// `transform`: the copy carries the screen's geometry.
    public var transform: Bool

    public init(hold: Double, maxContacts: Int? = nil, block: [String] = [], regions: [Region] = [],
                ghostTouches: String? = nil, ghostPatterns: [GhostPattern] = [], stuckAfter: Double? = nil,
                palmMillimetres: Double? = nil, transform: Bool = false) {
        self.hold = hold
        self.maxContacts = maxContacts
        self.block = block
        self.regions = regions
        self.ghostTouches = ghostTouches
        self.ghostPatterns = ghostPatterns
        self.stuckAfter = stuckAfter
        self.palmMillimetres = palmMillimetres
        self.transform = transform
    }

    /// `{"x":[x0,x1],"y":[y0,y1],"max_contacts":2,"block":["pinch"]}`: a
    /// rectangle in screen units; `max_contacts` and `block` absent when the
    /// region takes the table's.
    public struct Region: Sendable, Equatable {
        public var x0, x1, y0, y1: Double
        public var maxContacts: Int?
        public var block: [String]?

        public init(x0: Double, x1: Double, y0: Double, y1: Double, maxContacts: Int? = nil, block: [String]? = nil) {
            (self.x0, self.x1, self.y0, self.y1, self.maxContacts, self.block) = (x0, x1, y0, y1, maxContacts, block)
        }
    }

    /// `{"device":…,"period":12.9,"x_mm":128,"y_mm":72,"taps":5}`: a
    /// confirmed pattern of ghost taps — where on the panel (millimetres),
    /// how often, how many taps of it so far; `device` (the panel's path)
    /// with several panels selected.
    public struct GhostPattern: Sendable, Equatable {
        public var device: String?
        public var period: Double
        public var xMillimetres: Double
        public var yMillimetres: Double
        public var taps: Int

        public init(device: String? = nil, period: Double, xMillimetres: Double, yMillimetres: Double, taps: Int) {
            (self.device, self.period, self.xMillimetres, self.yMillimetres, self.taps) =
                (device, period, xMillimetres, yMillimetres, taps)
        }
    }
}

extension FilterStatus {
    /// `,"filter":{…}`: `hold` always, then each rule that is on.
    func encode(into w: JSONWriter) {
        w.raw(",\"filter\":{\"hold\":")
        w.number(hold)
        if let maxContacts {
            w.raw(",\"max_contacts\":")
            w.integer(maxContacts)
        }
        if !block.isEmpty { Self.encode(block: block, into: w) }
        if !regions.isEmpty {
            w.raw(",\"regions\":")
            Self.encode(regions: regions, into: w)
        }
        if let ghostTouches {
            w.raw(",\"ghost_touches\":")
            w.string(ghostTouches)
        }
        if !ghostPatterns.isEmpty {
            w.raw(",\"ghost_patterns\":[")
            for (k, pattern) in ghostPatterns.enumerated() {
                w.raw(k > 0 ? ",{" : "{")
                if let device = pattern.device {
                    w.raw("\"device\":")
                    w.string(device)
                    w.raw(",")
                }
                w.raw("\"period\":")
                w.number(pattern.period)
                w.raw(",\"x_mm\":")
                w.number(pattern.xMillimetres)
                w.raw(",\"y_mm\":")
                w.number(pattern.yMillimetres)
                w.raw(",\"taps\":")
                w.integer(pattern.taps)
                w.raw("}")
            }
            w.raw("]")
        }
        if let stuckAfter {
            w.raw(",\"stuck_after\":")
            w.number(stuckAfter)
        }
        if let palmMillimetres {
            w.raw(",\"palm_mm\":")
            w.number(palmMillimetres)
        }
        if transform { w.raw(",\"transform\":true") }
        w.raw("}")
    }

    /// `[{"x":[x0,x1],"y":[y0,y1],…},…]`: `hello`'s regions and `filter_regions`'.
    static func encode(regions: [Region], into w: JSONWriter) {
        w.raw("[")
        for (k, region) in regions.enumerated() {
            w.raw(k > 0 ? ",{\"x\":[" : "{\"x\":[")
            w.number(region.x0)
            w.raw(",")
            w.number(region.x1)
            w.raw("],\"y\":[")
            w.number(region.y0)
            w.raw(",")
            w.number(region.y1)
            w.raw("]")
            if let maxContacts = region.maxContacts {
                w.raw(",\"max_contacts\":")
                w.integer(maxContacts)
            }
            if let block = region.block { encode(block: block, into: w) }
            w.raw("}")
        }
        w.raw("]")
    }

    /// `,"block":["pinch",…]`.
    private static func encode(block: [String], into w: JSONWriter) {
        w.raw(",\"block\":[")
        for (k, gesture) in block.enumerated() {
            if k > 0 { w.raw(",") }
            w.string(gesture)
        }
        w.raw("]")
    }
}

extension Fields {
    /// `"filter":{…}`, nil when absent. Each field may be absent (a rule
    /// that is off), `hold` too (0); a present one must be of its type.
    func filter() throws(StreamDecodeError) -> FilterStatus? {
        guard let value = object["filter"], !value.isNull else { return nil }
        guard let entry = value.object else { throw bad("filter", "an object") }
        let inner = Fields(type: type, object: entry, prefix: prefix + "filter.")
        var regions: [FilterStatus.Region] = []
        for (k, item) in try inner.array("regions").enumerated() {
            guard let region = item.object else { throw inner.bad("regions[\(k)]", "an object") }
            let fields = Fields(type: type, object: region, prefix: inner.prefix + "regions[\(k)].")
            let x = try fields.span("x"), y = try fields.span("y")
            regions.append(FilterStatus.Region(x0: x.0, x1: x.1, y0: y.0, y1: y.1,
                                               maxContacts: try fields.optionalInt("max_contacts"),
                                               block: region["block"] == nil ? nil : try fields.strings("block")))
        }
        var patterns: [FilterStatus.GhostPattern] = []
        for (k, item) in try inner.array("ghost_patterns").enumerated() {
            guard let pattern = item.object else { throw inner.bad("ghost_patterns[\(k)]", "an object") }
            let fields = Fields(type: type, object: pattern, prefix: inner.prefix + "ghost_patterns[\(k)].")
            patterns.append(FilterStatus.GhostPattern(
                device: try fields.optionalString("device"), period: try fields.number("period"),
                xMillimetres: try fields.number("x_mm"), yMillimetres: try fields.number("y_mm"),
                taps: try fields.optionalInt("taps") ?? 0))
        }
        return FilterStatus(hold: try inner.optionalNumber("hold") ?? 0, maxContacts: try inner.optionalInt("max_contacts"),
                            block: try inner.strings("block"), regions: regions, ghostTouches: try inner.optionalString("ghost_touches"),
                            ghostPatterns: patterns, stuckAfter: try inner.optionalNumber("stuck_after"),
                            palmMillimetres: try inner.optionalNumber("palm_mm"),
                            transform: try inner.optionalBool("transform") ?? false)
    }

    /// An array of strings; absent is empty.
    private func strings(_ field: String) throws(StreamDecodeError) -> [String] {
        var result: [String] = []
        for (k, item) in try array(field).enumerated() {
            guard let text = item.string else { throw bad("\(field)[\(k)]", "a string") }
            result.append(text)
        }
        return result
    }

    /// `[low, high]`: two numbers.
    private func span(_ field: String) throws(StreamDecodeError) -> (Double, Double) {
        guard let items = object[field]?.array, items.count == 2,
              let low = items[0].double, let high = items[1].double else { throw bad(field, "[low, high]") }
        return (low, high)
    }
}
