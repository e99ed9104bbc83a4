import Engine
import WireProtocol

/// Encodes the engine's events and snapshots as the stream's lines
/// (WireProtocol's messages): it maps the engine's types to the wire's —
/// transition indices to names, keyframe tracks to values — and leaves the
/// bytes to WireProtocol. Events go through the prepared `EventLineEncoder`
/// (one encoding per event, shared by every consumer).
public struct EventEncoder: Sendable {
    public let configuration: EngineConfiguration
    private let lines: EventLineEncoder
    /// Every transition's keyframe tracks, laid end to end: transition
    /// `t`'s are `tracks[trackSpans[t]]` (flat: nothing nested per event).
    private let tracks: [Track]
    private let trackSpans: [Range<Int>]

    /// A keyframe track's numbers apart from its name (reading them copies
    /// nothing that is counted).
    private struct Track {
        var property: String
        var start, duration, from, to: Double
        var curve: TimingCurve

        init(_ track: KeyframeTrack) {
            property = track.property
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
        lines = EventLineEncoder(transitions: configuration.transitions.map { spec in
            (spec.name, spec.keyframes.map(\.property))
        })
        var tracks: [Track] = [], spans: [Range<Int>] = []
        for spec in configuration.transitions {
            let first = tracks.count
            tracks += spec.keyframes.map(Track.init)
            spans.append(first..<tracks.count)
        }
        self.tracks = tracks
        self.trackSpans = spans
    }

    /// Appends one event's line (with its `\n`).
    public func encode(_ e: TransitionEvent, into w: JSONWriter) {
        let first = trackSpans[e.transition].lowerBound
        lines.encode(e.kind.wire, transition: e.transition, seq: e.seq, time: e.time, progress: e.progress,
                     velocity: e.velocity, decision: e.decision?.wire, reason: e.reason?.wire, target: e.target,
                     index: e.index, position: e.position.map { TransitionUpdate.Position(x: $0.x, y: $0.y) }, into: w) { k in
            tracks[first + k].value(at: e.progress)
        }
    }

    /// The `hello` line: protocol and daemon versions, the configured
    /// transitions, and a snapshot of those in flight. `type` is `hello` on
    /// connect and `state` in reply to a `state` command (with its request
    /// `id`); `seq` (when given) is the seq of the last event before the
    /// snapshot; `input` the live daemon's `"input":…` fields; `exclusions`
    /// the exclusion regions in force; `filter` what filter mode's filter does;
    /// `identity` who the daemon is.
    public func hello(type: HelloType = .hello, active: [TransitionEngine.Snapshot], seq: UInt64? = nil,
                      input: HostInputStatus = [], geometry: ScreenGeometry? = nil,
                      devices: [(source: Int, path: String, name: String)] = [], exclusions: [ScreenRect] = [],
                      filter: FilterStatus? = nil, rests: [Double?] = [], latency: LatencyStatus? = nil,
                      identity: DaemonIdentity? = nil, id: RequestID? = nil, into w: JSONWriter) {
        var snapshot = self.snapshot(active: active, seq: seq, input: input, geometry: geometry, devices: devices,
                                     exclusions: exclusions, rests: rests)
        snapshot.filter = filter
        snapshot.panels = input.panels
        snapshot.latency = latency
        snapshot.identity = identity
        (type == .hello ? StreamMessage.hello(snapshot) : .state(snapshot, id: id)).encode(into: w)
    }

    /// `hello` on connect, `state` in reply to the command.
    public enum HelloType: Sendable { case hello, state }

    /// The engine's picture as the wire's snapshot.
    public func snapshot(active: [TransitionEngine.Snapshot], seq: UInt64?, input: HostInputStatus,
                         geometry: ScreenGeometry?, devices: [(source: Int, path: String, name: String)],
                         exclusions: [ScreenRect] = [], rests: [Double?] = []) -> StreamSnapshot {
        StreamSnapshot(
            protocolVersion: TransitiondVersion.protocolVersion, version: TransitiondVersion.current,
            transitions: configuration.transitions.prefix(listed).enumerated().map { i, spec in
                TransitionInfo(spec, rest: i < rests.count ? rests[i] : nil)
            },
            active: active.map { snapshot in
                let span = trackSpans[snapshot.transition]
                return ActiveTransition(
                    transition: configuration.transitions[snapshot.transition].name,
                    phase: snapshot.phase == .interacting ? .interacting : .animating, progress: snapshot.progress,
                    target: snapshot.target,
                    values: tracks[span].map { PropertyValue($0.property, $0.value(at: snapshot.progress)) })
            },
            seq: seq, input: InputStatus(input.fields), devices: devices.map { InputDevice(source: $0.source, path: $0.path, name: $0.name) },
            geometry: geometry.flatMap(Geometry.init),
            exclusions: exclusions.map { ExclusionRect($0.x0, $0.y0, $0.x1, $0.y1) })
    }
}
