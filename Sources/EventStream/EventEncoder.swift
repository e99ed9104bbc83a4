import TransitionEngine

/// The daemon's version, reported in `hello`.
public enum TransitiondVersion {
    public static let current = "0.1.0"
    /// The stream protocol version.
    public static let protocolVersion = 1
}

/// Encodes engine events as the NDJSON lines of design "Events". Names and
/// keyframe tracks are prepared once from the configuration; each event is
/// then written straight into a byte buffer (the hot path: one encoding per
/// event, shared by every consumer).
public struct EventEncoder: Sendable {
    public let configuration: EngineConfiguration
    /// The pre-encoded text, laid end to end in one buffer: per transition
    /// and kind the head `{"type":"KIND","transition":"NAME","seq":`
    /// (transition `t`'s of kind `k` is `headRanges[t * kinds + k]`), and
    /// per track its `"PROPERTY":` (transition `t`'s tracks are
    /// `tracks[trackSpans[t]]`). Flat arrays: nothing nested is retained
    /// per event.
    private let pieces: [UInt8]
    private let headRanges: [Range<Int>]
    private let tracks: [Track]
    private let trackSpans: [Range<Int>]
    /// The most bytes each transition's `,"values":{…}` takes.
    private let valuesBounds: [Int]
    /// The longest line each transition's events can take.
    private let lineBounds: [Int]
    /// How many kinds of event there are (a stored value: a static one
    /// would be looked up through a lazy initialiser on every event).
    private let kinds = TransitionEvent.Kind.allCases.count

    /// A keyframe track: where its key is in `pieces`, and its numbers
    /// apart from its name (reading them copies nothing that is counted).
    private struct Track {
        var key: Range<Int>
        var start, duration, from, to: Double
        var curve: TimingCurve

        init(key: Range<Int>, _ track: KeyframeTrack) {
            self.key = key
            (start, duration, from, to, curve) = (track.start, track.duration, track.from, track.to, track.curve)
        }

        func value(at p: Double) -> Double {
            KeyframeTrack.value(at: p, start: start, duration: duration, from: from, to: to, curve: curve)
        }
    }

    /// How many of the transitions `hello` lists (the current config's;
    /// the rest are an earlier config's still in flight).
    public let listed: Int

    public init(configuration: EngineConfiguration, listed: Int? = nil) {
        self.configuration = configuration
        self.listed = min(listed ?? configuration.transitions.count, configuration.transitions.count)
        var pieces: [UInt8] = []
        /// Appends what `write` writes to `pieces`; returns where it is.
        func place(_ write: (JSONWriter) -> Void) -> Range<Int> {
            let w = JSONWriter(capacity: 64)
            write(w)
            pieces += w.bytes
            return pieces.count - w.count..<pieces.count
        }
        var headRanges: [Range<Int>] = [], tracks: [Track] = [], spans: [Range<Int>] = []
        var valuesBounds: [Int] = [], lineBounds: [Int] = []
        for spec in configuration.transitions {
            let heads = TransitionEvent.Kind.allCases.map { kind in
                place { w in
                    w.raw("{\"type\":")
                    w.string(kind.rawValue)
                    w.raw(",\"transition\":")
                    w.string(spec.name)
                    w.raw(",\"seq\":")
                }
            }
            headRanges += heads
            let first = tracks.count
            for track in spec.keyframes {
                let key = place { w in
                    w.string(track.property)
                    w.raw(":")
                }
                tracks.append(Track(key: key, track))
            }
            spans.append(first..<tracks.count)
            // `,"values":{` and `}`, then a key, a comma and a number per track.
            let values = 12 + tracks[first...].reduce(0) { $0 + $1.key.count + 1 + JSONCursor.longestNumber }
            valuesBounds.append(values)
            // The head and the values, and room for every other field an
            // event can carry (seq, six numbers, the decision and the reason).
            lineBounds.append(heads.map(\.count).max()! + values + JSONCursor.longestInteger
                              + 6 * JSONCursor.longestNumber + 256)
        }
        self.pieces = pieces
        self.headRanges = headRanges
        self.tracks = tracks
        self.trackSpans = spans
        self.valuesBounds = valuesBounds
        self.lineBounds = lineBounds
    }

    /// Appends one event's line (with its `\n`).
    public func encode(_ e: TransitionEvent, into w: JSONWriter) {
        pieces.withUnsafeBufferPointer { pieces in
            w.inPlace(reserving: lineBounds[e.transition]) { out in
                out.raw(UnsafeBufferPointer(rebasing: pieces[headRanges[e.transition * kinds + e.kind.index]]))
                out.unsigned(e.seq)
                out.raw(",\"time\":")
                out.number(e.time)
                out.raw(",\"progress\":")
                out.number(e.progress)
                out.raw(",\"velocity\":")
                out.number(e.velocity)
                values(transition: e.transition, progress: e.progress, pieces: pieces, into: &out)
                if let decision = e.decision {
                    out.raw(decision == .finish ? ",\"decision\":\"finish\"" : ",\"decision\":\"cancel\"")
                }
                if let reason = e.reason {
                    out.raw(",\"reason\":\"")
                    switch reason {
                    case .released: out.raw("released")
                    case .deviceLost: out.raw("device-lost")
                    case .clientLost: out.raw("client-lost")
                    case .command: out.raw("command")
                    case .shutdown: out.raw("shutdown")
                    case .reload: out.raw("reload")
                    }
                    out.byte(UInt8(ascii: "\""))
                }
                if let target = e.target {
                    out.raw(",\"target\":")
                    out.number(target)
                }
                if let position = e.position {
                    out.raw(",\"position\":{\"x\":")
                    out.number(position.x)
                    out.raw(",\"y\":")
                    out.number(position.y)
                    out.byte(UInt8(ascii: "}"))
                }
                out.raw("}\n")
            }
        }
    }

    /// `,"values":{…}` for a transition at a progress (at most
    /// `valuesBounds[transition]` bytes).
    @inline(__always)
    private func values(transition: Int, progress: Double, pieces: UnsafeBufferPointer<UInt8>,
                        into out: inout JSONCursor) {
        out.raw(",\"values\":{")
        let span = trackSpans[transition]
        for k in span {
            if k > span.lowerBound { out.byte(UInt8(ascii: ",")) }
            out.raw(UnsafeBufferPointer(rebasing: pieces[tracks[k].key]))
            out.number(tracks[k].value(at: progress))
        }
        out.byte(UInt8(ascii: "}"))
    }

    /// The `hello` line: protocol and daemon versions, the configured
    /// transitions, and a snapshot of those in flight. `type` is `hello` on
    /// connect and `state` in reply to a `state` command; `seq` (when given)
    /// is the seq of the last event before the snapshot.
    public func hello(type: StaticString = "hello", active: [TransitionEngine.Snapshot], seq: UInt64? = nil,
                      extra: [(key: String, value: String)] = [], geometry: ScreenGeometry? = nil,
                      devices: [(source: Int, path: String, name: String)] = [],
                      into w: JSONWriter) {
        w.raw("{\"type\":\"")
        w.raw(type)
        w.raw("\",\"protocol\":")
        w.integer(TransitiondVersion.protocolVersion)
        w.raw(",\"version\":")
        w.string(TransitiondVersion.current)
        w.raw(",\"transitions\":[")
        for (i, spec) in configuration.transitions.prefix(listed).enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"name\":")
            w.string(spec.name)
            w.raw(",\"gesture\":")
            w.string(spec.gesture.name)
            w.raw(",\"fingers\":")
            w.integer(spec.gesture.fingers)
            // Where it comes from, so that a UI animates from the right side
            // without its own copy of the config.
            switch spec.gesture {
            case .edgePan(let edge, _, _, _):
                w.raw(",\"edge\":")
                w.string(edge.rawValue)
            case .swipe(let direction, _):
                w.raw(",\"direction\":")
                w.string(direction.rawValue)
            case .pinch(let direction):
                w.raw(",\"direction\":")
                w.string(direction.rawValue)
            }
            if !spec.enabled { w.raw(",\"enabled\":false") }
            if let device = spec.device {
                w.raw(",\"device\":")
                w.string(device)
            }
            w.raw("}")
        }
        w.raw("],\"active\":[")
        for (i, snapshot) in active.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"transition\":")
            w.string(configuration.transitions[snapshot.transition].name)
            w.raw(",\"phase\":")
            w.string(snapshot.phase.rawValue)
            w.raw(",\"progress\":")
            w.number(snapshot.progress)
            pieces.withUnsafeBufferPointer { pieces in
                w.inPlace(reserving: valuesBounds[snapshot.transition]) { out in
                    values(transition: snapshot.transition, progress: snapshot.progress, pieces: pieces, into: &out)
                }
            }
            if let target = snapshot.target {
                w.raw(",\"target\":")
                w.number(target)
            }
            w.raw("}")
        }
        w.raw("]")
        if let seq {
            w.raw(",\"seq\":")
            w.integer(seq)
        }
        for (key, value) in extra {
            w.raw(",")
            w.string(key)
            w.raw(":")
            w.string(value)
        }
        if !devices.isEmpty {
            // Several touchscreens: each attached one with its source number.
            w.raw(",\"devices\":[")
            for (i, device) in devices.enumerated() {
                if i > 0 { w.raw(",") }
                w.raw("{\"source\":")
                w.integer(device.source)
                w.raw(",\"path\":")
                w.string(device.path)
                w.raw(",\"name\":")
                w.string(device.name)
                w.raw("}")
            }
            w.raw("]")
        }
        if let geometry, !geometry.isIdentity { self.geometry(geometry, into: w) }
        w.raw("}\n")
    }

    /// `"geometry":{"rotation":90,"flip_x":false,"flip_y":false,"calibration":[…]|null,"calibration_from":"config"}`.
    public func geometry(_ geometry: ScreenGeometry, into w: JSONWriter) {
        w.raw(",\"geometry\":{\"rotation\":")
        w.integer(geometry.rotation.rawValue)
        w.raw(geometry.flipX ? ",\"flip_x\":true" : ",\"flip_x\":false")
        w.raw(geometry.flipY ? ",\"flip_y\":true" : ",\"flip_y\":false")
        w.raw(",\"calibration\":")
        if let matrix = geometry.calibration {
            w.raw("[")
            for (i, value) in matrix.enumerated() {
                if i > 0 { w.raw(",") }
                w.number(value)
            }
            w.raw("]")
        } else {
            w.raw("null")
        }
        w.raw(",\"calibration_from\":")
        w.string(geometry.calibrationSource.rawValue)
        w.raw("}")
    }
}
