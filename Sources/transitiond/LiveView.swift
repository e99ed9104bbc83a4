import EventStream
import StreamClient
import Engine
import WireProtocol

/// The terminal view of a replay: the engine's events, named, go through
/// the same `StreamMirror` and `TerminalView` as a socket client's.
struct LiveView {
    private var mirror: StreamMirror
    private var view = TerminalView(names: [])
    private let names: [String]
    private let encoder: ValuesOfTransitions

    init(configuration: EngineConfiguration) {
        names = configuration.transitions.map(\.name)
        mirror = StreamMirror(names: names)
        // What a client's hello would say: the gestures and the snap points, at rest.
        mirror.apply(.hello(EventEncoder(configuration: configuration)
            .snapshot(active: [], seq: nil, input: [], geometry: nil, devices: [])))
        encoder = ValuesOfTransitions(configuration)
    }

    /// Applies events and prints what changed (log lines, then the bars at
    /// most 30 times a second unless `force` or something was logged).
    mutating func show(_ events: [TransitionEvent], force: Bool = false, to out: inout StandardOutput) {
        var text = ""
        for e in events {
            let update = TransitionUpdate(kind: e.kind.wire, transition: names[e.transition], seq: e.seq, time: e.time,
                                          progress: e.progress, velocity: e.velocity,
                                          values: encoder.values(e.transition, e.progress),
                                          decision: e.decision?.wire, reason: e.reason?.wire, target: e.target,
                                          index: e.index)
            mirror.apply(update)
            text += view.show(.event(update), mirror: mirror, path: "")
        }
        if force { text += view.clear() + view.tick(mirror, force: true) }
        out.write(text)
    }
}

/// Keyframe values of a transition at a progress, as the stream carries them.
private struct ValuesOfTransitions {
    let tracks: [[KeyframeTrack]]
    init(_ configuration: EngineConfiguration) { tracks = configuration.transitions.map(\.keyframes) }
    func values(_ transition: Int, _ progress: Double) -> [PropertyValue] {
        tracks[transition].map { PropertyValue($0.property, $0.value(at: progress)) }
    }
}

// MARK: - Formatting without Foundation

/// `x` with `decimals` digits after the point.
func fixed(_ x: Double, _ decimals: Int) -> String {
    guard x.isFinite else { return "\(x)" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(x) * scale).rounded()
    let whole = Int(scaled / scale)
    let fraction = Int(scaled - Double(whole) * scale)
    var digits = String(fraction)
    while digits.count < decimals { digits = "0" + digits }
    let sign = x < 0 && scaled != 0 ? "-" : ""
    return decimals > 0 ? "\(sign)\(whole).\(digits)" : "\(sign)\(whole)"
}

func percent(_ p: Double) -> String { fixed(p * 100, 1) + "%" }

func signed(_ v: Double) -> String { (v >= 0 ? "+" : "") + fixed(v, 2) }

func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
    let gap = max(0, width - s.count)
    let spaces = String(repeating: " ", count: gap)
    return left ? spaces + s : s + spaces
}
