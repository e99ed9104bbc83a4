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
    /// `{"type":"KIND","transition":"NAME","seq":` pre-encoded per
    /// transition and kind.
    private let heads: [[[UInt8]]]
    /// `"PROPERTY":` pre-encoded per transition and track.
    private let trackKeys: [[[UInt8]]]
    /// Each track's numbers per transition, apart from its name: reading
    /// them copies nothing that is counted.
    private let trackCurves: [[TrackCurve]]

    private struct TrackCurve {
        var start, duration, from, to: Double
        var curve: TimingCurve

        init(_ track: KeyframeTrack) {
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
        var prefixes: [[[UInt8]]] = []
        var keys: [[[UInt8]]] = []
        for spec in configuration.transitions {
            prefixes.append(TransitionEvent.Kind.allCases.map { kind in
                let w = JSONWriter(capacity: 64)
                w.raw("{\"type\":")
                w.string(kind.rawValue)
                w.raw(",\"transition\":")
                w.string(spec.name)
                w.raw(",\"seq\":")
                return w.bytes
            })
            keys.append(spec.keyframes.map { track in
                let k = JSONWriter(capacity: 32)
                k.string(track.property)
                k.raw(":")
                return k.bytes
            })
        }
        heads = prefixes
        trackKeys = keys
        trackCurves = configuration.transitions.map { $0.keyframes.map(TrackCurve.init) }
    }

    /// Appends one event's line (with its `\n`).
    public func encode(_ e: TransitionEvent, into w: JSONWriter) {
        w.raw(heads[e.transition][e.kind.index])
        w.integer(e.seq)
        w.raw(",\"time\":")
        w.number(e.time)
        w.raw(",\"progress\":")
        w.number(e.progress)
        w.raw(",\"velocity\":")
        w.number(e.velocity)
        values(transition: e.transition, progress: e.progress, into: w)
        if let decision = e.decision {
            w.raw(decision == .finish ? ",\"decision\":\"finish\"" : ",\"decision\":\"cancel\"")
        }
        if let reason = e.reason {
            w.raw(",\"reason\":\"")
            switch reason {
            case .released: w.raw("released")
            case .deviceLost: w.raw("device-lost")
            case .clientLost: w.raw("client-lost")
            case .command: w.raw("command")
            case .shutdown: w.raw("shutdown")
            }
            w.raw("\"")
        }
        if let target = e.target {
            w.raw(",\"target\":")
            w.number(target)
        }
        if let position = e.position {
            w.raw(",\"position\":{\"x\":")
            w.number(position.x)
            w.raw(",\"y\":")
            w.number(position.y)
            w.raw("}")
        }
        w.raw("}\n")
    }

    /// `,"values":{…}` for a transition at a progress.
    private func values(transition: Int, progress: Double, into w: JSONWriter) {
        w.raw(",\"values\":{")
        let curves = trackCurves[transition]
        for k in curves.indices {
            if k > 0 { w.raw(",") }
            w.raw(trackKeys[transition][k])
            w.number(curves[k].value(at: progress))
        }
        w.raw("}")
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
            values(transition: snapshot.transition, progress: snapshot.progress, into: w)
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
